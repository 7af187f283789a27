// `eqsat explain GRAPH LHS RHS` and `eqsat optimize --explain`: steps on
// stdout (explain) or stderr (optimize, whose stdout stays the graph),
// exit 1 with a clear message for an equality the rules do not prove, and
// errors in LHS / RHS located in them.
#include "run_eqsat.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::run_eqsat;
using eqsat::testing::Scratch;

namespace {
const char* kGraph = "(input x (f64 4))\n(let y (exp x))\n(output (add y 0))\n";
}

TEST_CASE("explain: (add x 0) = x in one add-zero step") {
  Scratch s;
  s.write("g.eg", kGraph);
  const auto r = run_eqsat(s, "explain g.eg '(add x 0)' x --quiet");
  CHECK(r.status == 0);
  CHECK(r.out == "(add x 0) = x: 1 step\n  1. add-zero at (): (add x 0.0) => x\n");
}

TEST_CASE("explain: let names and nested steps") {
  Scratch s;
  s.write("g.eg", kGraph);
  const auto r = run_eqsat(s, "explain g.eg '(log (add y 0))' x --quiet");
  CHECK(r.status == 0);
  CHECK(r.out.find("add-zero at (0)") != std::string::npos);
  CHECK(r.out.find("log-exp at (): (log (exp x)) => x") != std::string::npos);
}

TEST_CASE("explain: a loop's body is rewritten") {
  Scratch s;
  s.write("loop.eg",
          "(input x0 (f64 3))\n"
          "(let s (scan :n-steps 4 :sit-sot (x0) (fn (x) (mul (add x 0) 1.5))))\n"
          "(output (get 0 s))\n");
  const auto r = run_eqsat(
      s,
      "explain loop.eg '(get 0 s)' '(get 0 (scan :n-steps 4 :sit-sot (x0) (fn (h) (mul h 1.5))))'"
      " --quiet");
  CHECK(r.status == 0);
  CHECK(r.out.find("add-zero at (0 0 0 0): (add p0 0.0) => p0") != std::string::npos);
}

TEST_CASE("explain: an equality the rules do not prove exits 1") {
  Scratch s;
  s.write("g.eg", kGraph);
  const auto r = run_eqsat(s, "explain g.eg '(exp x)' '(log x)' --quiet");
  CHECK(r.status == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "g.eg: not proven equal within the limits: saturated\n");
}

TEST_CASE("explain: an error in LHS points into LHS") {
  Scratch s;
  s.write("g.eg", kGraph);
  const auto r = run_eqsat(s, "explain g.eg '(add z 0)' x --quiet");
  CHECK(r.status == 1);
  CHECK(r.err.find("LHS:1:6: error:") != std::string::npos);
}

TEST_CASE("optimize --explain: the graph on stdout, the steps on stderr") {
  Scratch s;
  s.write("g.eg", kGraph);
  const auto plain = run_eqsat(s, "optimize g.eg --quiet");
  const auto r = run_eqsat(s, "optimize g.eg --explain --quiet");
  REQUIRE(r.status == 0);
  CHECK(r.out == plain.out);
  CHECK(plain.err.empty());
  CHECK(r.err == "out0: 1 step\n  1. add-zero at (): (add (exp x) 0.0) => (exp x)\n");
}

TEST_CASE("explain: a size that folds past 64 bits is a located error") {
  Scratch s;
  s.write("g.eg",
          "(input y (f64 2))\n(let a (arange (mul 3 1537228672809129302)))\n"
          "(output (exp y))\n(output a)\n");
  const auto r = run_eqsat(s, "explain g.eg y y");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::StartsWith("g.eg:2:8: error: arange: (i64 "));
  CHECK_THAT(r.err, !Catch::Contains("internal error"));
}
