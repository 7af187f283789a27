// Reading source files: the OS reason when a file cannot be read, a
// directory refused, and a size limit for devices and huge files.
#include "ops/diagnostic.hpp"
#include "ops/source_file.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::ops;

TEST_CASE("a file is read whole") {
  const std::string text = read_source_file(std::string(EQSAT_TESTS_DIR) + "/test_source_file.cpp");
  CHECK(text.find("a file is read whole") != std::string::npos);
}

TEST_CASE("a missing file or a directory is an error with the reason") {
  CHECK_THROWS_WITH(read_source_file("/nonexistent/g.eg"),
                    "/nonexistent/g.eg: error: cannot read file: No such file or directory");
  CHECK_THROWS_WITH(read_source_file(EQSAT_TESTS_DIR),
                    std::string(EQSAT_TESTS_DIR) + ": error: cannot read file: it is a directory");
}

TEST_CASE("a device or a file past the limit is refused - not read until memory runs out") {
  CHECK_THROWS_WITH(read_source_file("/dev/zero"),
                    "/dev/zero: error: cannot read file: larger than the limit of 67108864 bytes "
                    "for a source file");
  CHECK_THROWS_WITH(read_source_file(std::string(EQSAT_TESTS_DIR) + "/test_source_file.cpp", 100),
                    Catch::Contains("larger than the limit of 100 bytes"));
  CHECK(read_source_file("/dev/null").empty());
}
