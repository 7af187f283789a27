// `eqsat dot -o`: the file is written whole or not at all, and an unusable
// path (or the input graph itself) is refused before any work.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::read_file;
using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

namespace {
const char* kGraph = "(input x (f64 3))\n(output (exp (add x 0)))\n";
}

TEST_CASE("dot: -o writes the picture, and refuses unusable paths before any work") {
  Scratch s;
  s.write("g.eg", kGraph);
  auto r = run_eqsat(s, "dot g.eg --egraph -o g.dot");
  REQUIRE(r.status == 0);
  CHECK(read_file(s.path("g.dot")).rfind("digraph", 0) == 0);
  r = run_eqsat(s, "dot missing.eg -o nodir/g.dot");
  CHECK(r.status == 1);
  CHECK(r.err.rfind("error: -o nodir/g.dot: ", 0) == 0);
  r = run_eqsat(s, "dot g.eg -o g.eg");
  CHECK(r.status == 1);
  CHECK(r.err == "error: -o g.eg: is the input graph; it would be lost\n");
  CHECK(read_file(s.path("g.eg")) == kGraph);
}

TEST_CASE("dot --egraph: costs from the cost profile optimize uses, or its --cost-profile") {
  Scratch s;
  s.write("g.eg", kGraph);
  s.write("bad.json", "{ not json");
  auto r = run_eqsat(s, "dot g.eg --egraph --cost-profile bad.json -o g.dot");
  CHECK(r.status == 1);
  CHECK(r.err.rfind("error: bad.json: ", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(s.path("g.dot")));
  r = run_eqsat(s, "dot g.eg --egraph --cost-profile missing.json");
  CHECK(r.status == 1);
  CHECK(r.err == "error: missing.json: cannot read the cost profile: No such file or directory\n");
}
