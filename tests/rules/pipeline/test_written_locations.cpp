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
