// rules/pipeline/written_locations.hpp: a term the optimizer built fails at
// the position of the written term of its e-class.
#include "tests/support/check_optimizes.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

using namespace eqsat;
using eqsat::testing::graph;
using eqsat::testing::optimized;

TEST_CASE("an optimized term that fails at run time fails at the written position") {
  // `(mul x 1.0)` becomes `x`: the optimized `index` is a new term.
  const ops::Graph g = graph(
      "(input x (f64 ?))\n"
      "(input k i64)\n"
      "(output (add (index (mul x 1.0) k) 0.0))\n");
  const ops::Graph out = optimized(g);
  REQUIRE(out.outputs[0].term != g.outputs[0].term);
  const std::vector<ops::Array> in{ops::Array::filled(ops::DType::F64, {3}, 1.0),
                                   ops::Array::filled(ops::DType::I64, {}, 5)};
  std::string written;
  try {
    backend::compile(g).run(in);
  } catch (const backend::RuntimeError& e) {
    written = e.what();
  }
  REQUIRE(written.starts_with("t.eg:3:14: error: index: "));
  CHECK_THROWS_WITH(backend::compile(out).run(in), written);
}

TEST_CASE("a gradient that fails at run time fails at its grad") {
  // The loop runs no step: `index -1` of its history fails, and so does
  // the pullback of that index, a term no one wrote.
  const ops::Graph g = graph(
      "(input x (f64 3))\n"
      "(input k i64)\n"
      "(let s (scan :n-steps k :sit-sot (x) (fn (h) (sin h))))\n"
      "(output (grad (sum (index (get 0 s) -1)) x))\n");
  const ops::Graph out = optimized(g);
  const std::vector<ops::Array> in{ops::Array::filled(ops::DType::F64, {3}, 1.0),
                                   ops::Array::filled(ops::DType::I64, {}, 0)};
  CHECK_THROWS_WITH(backend::compile(out).run(in),
                    Catch::StartsWith("t.eg:4:9: error: ") &&
                        Catch::Contains("index -1 is out of range for axis 0 with length 0"));
  // With steps, it runs.
  const std::vector<ops::Array> two{in[0], ops::Array::filled(ops::DType::I64, {}, 2)};
  CHECK(backend::compile(out).run(two)[0].shape() == ops::Dims{3});
}

TEST_CASE("a loop made to keep its last step fails where the loop was written") {
  // scan-save-mem rewrites the whole read into a loop with :keep 1, a class
  // no one wrote: its step count check is the written loop's (issue 25).
  const ops::Graph g = graph(
      "(input q (f64 6))\n"
      "(let s (scan :n-steps 10 :sequences (q) :sit-sot ((const f64 0.0)) (fn (x h) (add h x))))\n"
      "(output (index (get 0 s) -1))\n");
  const ops::Graph out = optimized(g);
  REQUIRE(out.outputs[0].term != g.outputs[0].term);
  const std::vector<ops::Array> in{ops::Array::filled(ops::DType::F64, {6}, 1.0)};
  std::string written;
  try {
    backend::compile(g).run(in);
  } catch (const backend::RuntimeError& e) {
    written = e.what();
  }
  REQUIRE(written.starts_with("t.eg:2:8: error: scan: "));
  CHECK_THROWS_WITH(backend::compile(out).run(in), written);
}
