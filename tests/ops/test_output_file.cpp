// Atomic output files: the target is replaced only by a complete file, and
// a failure says why and leaves no temporary file behind.
#include "ops/diagnostic.hpp"
#include "ops/output_file.hpp"
#include "ops/source_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace eqsat::ops;
namespace fs = std::filesystem;

namespace {
// A fresh empty directory for one test.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("eqsat_test_output_file_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("the file holds every part and replaces an old one") {
  const fs::path dir = fresh_dir("parts");
  const std::string path = (dir / "out.txt").string();
  std::ofstream(path) << "an old, longer content that must disappear";
  write_file_atomically(path, {"abc", "", "def"});
  CHECK(read_source_file(path) == "abcdef");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("failures name the OS reason and leave nothing behind") {
  const fs::path dir = fresh_dir("failures");
  const std::string missing = (dir / "no" / "out.txt").string();
  CHECK_THROWS_WITH(write_file_atomically(missing, {"x"}),
                    missing + ": error: cannot write file: No such file or directory");
  std::ofstream((dir / "plain").string()) << "a file, not a directory";
  const std::string under_file = (dir / "plain" / "out.txt").string();
  CHECK_THROWS_WITH(write_file_atomically(under_file, {"x"}),
                    under_file + ": error: cannot write file: Not a directory");
  fs::create_directories(dir / "sub");
  CHECK_THROWS_WITH(write_file_atomically((dir / "sub").string(), {"x"}),
                    Catch::Contains("cannot write file: it is a directory"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 2);
}
