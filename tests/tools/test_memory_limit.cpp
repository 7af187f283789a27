// The --memory-limit values: sizes with binary suffixes, and the machine's
// available memory as the default; `run` and `profile` check the planned
// memory against it before any input is allocated.
#include "run_eqsat.hpp"

#include "tools/memory_limit.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace eqsat::tools;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

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

TEST_CASE("the resident memory is known and counts the pages a process touches") {
  const auto before = resident_memory_bytes();
  REQUIRE(before);
  CHECK(*before > 0);
  std::vector<char> touched(64 << 20, 1);  // 64 MiB, written
  const auto after = resident_memory_bytes();
  REQUIRE(after);
  CHECK(*after - *before >= (48 << 20));
  CHECK(touched.back() == 1);
}

TEST_CASE("run and profile: a planned memory over --memory-limit fails before it starts") {
  for (const std::string command : {"run", "profile --repeat 1"}) {
    INFO(command);
    Scratch s;
    s.write("g.eg", "(input x (f64 1000 1000))\n(output (exp x))\n");
    auto r = run_eqsat(s, command + " g.eg --random 0 --memory-limit 10M --no-opt");
    CHECK(r.status == 1);
    CHECK(r.err ==
          "g.eg: error: the run is planned to need 16000000 bytes (15.3 MiB) of memory, more "
          "than the limit of 10485760 bytes (10.0 MiB)\n");
    CHECK(r.out.empty());
    r = run_eqsat(s, command + " g.eg --random 0 --memory-limit 20M --no-opt");
    CHECK(r.status == 0);
    CHECK(run_eqsat(s, command + " g.eg --random 0 --memory-limit lots").status == 2);
  }
}

TEST_CASE("run and profile: by default the limit is the memory available - 8 TB is refused") {
  for (const std::string command : {"run", "profile"}) {
    INFO(command);
    Scratch s;
    s.write("g.eg", "(input x (f64 1000000000 1000))\n(output (exp x))\n");
    const auto r = run_eqsat(s, command + " g.eg --random 0");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::StartsWith("g.eg: error: the run is planned to need 16000000000000 "
                                        "bytes (14.6 TiB) of memory, more than the limit of "));
    CHECK_THAT(r.err, Catch::EndsWith("the memory available now; set it with --memory-limit)\n"));
  }
}
