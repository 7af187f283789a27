// `eqsat profile`: the planned memory checked against --memory-limit before
// any input is allocated, as `run` does; --json checked before any work.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::read_file;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("profile: a planned memory over --memory-limit fails before it starts") {
  Scratch s;
  s.write("g.eg", "(input x (f64 1000 1000))\n(output (exp x))\n");
  auto r = run_eqsat(s, "profile g.eg --random 0 --repeat 1 --memory-limit 10M --no-opt");
  CHECK(r.status == 1);
  CHECK(r.err ==
        "g.eg: error: the run is planned to need 16000000 bytes (15.3 MiB) of memory, more than "
        "the limit of 10485760 bytes (10.0 MiB)\n");
  CHECK(r.out.empty());
  r = run_eqsat(s, "profile g.eg --random 0 --repeat 1 --memory-limit 20M --no-opt");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("1 runs after a warm-up"));
  CHECK(run_eqsat(s, "profile g.eg --random 0 --memory-limit lots").status == 2);
}

TEST_CASE("profile: by default the limit is the memory available - 8 TB is refused at once") {
  Scratch s;
  s.write("g.eg", "(input x (f64 1000000000 1000))\n(output (exp x))\n");
  const auto r = run_eqsat(s, "profile g.eg --random 0");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("g.eg: error: the run is planned to need 16000000000000 "
                                      "bytes (14.6 TiB) of memory, more than the limit of "));
  CHECK_THAT(r.err, Catch::EndsWith("the memory available now; set it with --memory-limit)\n"));
  CHECK_THAT(r.err, !Catch::Contains("internal error"));
}

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
