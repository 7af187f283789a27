// `eqsat profile`: --json checked before any work (its memory limit is
// tested with run's, in test_memory_limit.cpp).
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::read_file;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("profile: --json is checked before any work and never replaces an input") {
  Scratch s;
  const std::string graph = "(input x (f64 3))\n(output (exp x))\n";
  s.write("g.eg", graph);
  s.write("afile", "a file, not a directory");
  auto r = run_eqsat(s, "profile --json g.eg g.eg --random 0");
  CHECK(r.status == 1);
  CHECK(r.err == "error: --json g.eg: is the input graph; it would be lost\n");
  CHECK(read_file(s.path("g.eg")) == graph);
  r = run_eqsat(s, "profile g.eg --random 0 --json nodir/p.json");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "error: --json nodir/p.json: cannot create it: nodir: No such file or directory\n");
  CHECK(r.out.empty());  // nothing was timed
  r = run_eqsat(s, "profile g.eg --random 0 --repeat 2 --json p.json");
  CHECK(r.status == 0);
  CHECK_THAT(read_file(s.path("p.json")), Catch::StartsWith("{\n  \"runs\": 2,"));
}
