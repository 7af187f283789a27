// A graph with no outputs: a warning on stderr (tools/empty_graph.cpp),
// still exit 0 (it is a valid graph).
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

TEST_CASE("an empty graph warns in print, optimize, run and profile") {
  Scratch s;
  s.write("empty.eg", "; nothing yet\n(input x (f64 3))\n");
  for (const char* args : {"print empty.eg", "optimize empty.eg", "run empty.eg --random 0",
                           "profile empty.eg --random 0 --repeat 1"}) {
    const auto r = run_eqsat(s, args);
    INFO(args << ": " << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.err,
               Catch::Contains(
                   "empty.eg: warning: the graph has no outputs: there is nothing to compute"));
  }
  s.write("one.eg", "(input x (f64 3))\n(output (exp x))\n");
  CHECK(run_eqsat(s, "print one.eg").err.empty());
}
