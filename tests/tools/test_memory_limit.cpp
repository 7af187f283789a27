// The --memory-limit values: sizes with binary suffixes, and the machine's
// available memory as the default.
#include "tools/memory_limit.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::tools;

TEST_CASE("sizes are bytes or take a binary suffix") {
  CHECK(parse_byte_size("4096") == 4096);
  CHECK(parse_byte_size("512M") == 512LL << 20);
  CHECK(parse_byte_size("1.5G") == 3LL << 29);
  CHECK(parse_byte_size("2GiB") == 2LL << 30);
  CHECK(parse_byte_size("1T") == 1LL << 40);
  for (const char* bad : {"", "-1", "1X", "G", "8388608T", "nan", "1e400"})
    CHECK(parse_byte_size(bad) == std::nullopt);
}

TEST_CASE("the available memory is known on Linux and printed readably") {
  const auto available = available_memory_bytes();
  REQUIRE(available);
  CHECK(*available > 0);
  CHECK(human_bytes(512) == "512 bytes");
  CHECK(human_bytes(3LL << 29) == "1.5 GiB");
}
