// The memory plan of a run: buffers live from their instruction to their
// last reader, inputs and outputs throughout, views free, bodies added
// while their scan runs; dimensions follow from the inputs' shapes.
#include "backend/memory_plan.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace eqsat;
using ops::DType;

namespace {
std::int64_t plan(const std::string& text, const std::vector<ops::TensorType>& inputs) {
  return backend::planned_bytes(ops::parse_graph(text, "t.eg", "."), inputs);
}
}  // namespace

TEST_CASE("a chain keeps the input and two values alive at once") {
  CHECK(plan("(input x (f64 1000))\n(output (exp x))", {{DType::F64, {1000}}}) == 16000);
  // x, a, b at b; a dies after b; x, b, c at the output.
  CHECK(plan("(input x (f64 1000))\n(let a (exp x))\n(let b (log a))\n(output (sin b))",
             {{DType::F64, {1000}}}) == 24000);
  // Two outputs both stay to the end.
  CHECK(plan("(input x (f32 1000))\n(output (exp x))\n(output (log x))", {{DType::F32, {1000}}}) ==
        12000);
}

TEST_CASE("unknown dimensions take the inputs' shapes - views cost nothing") {
  CHECK(plan("(input x (f64 ?))\n(output (exp x))", {{DType::F64, {1000}}}) == 16000);
  CHECK(plan("(input x (f64 ?))\n(output (reshape (exp x) :shape (10 -1)))",
             {{DType::F64, {1000}}}) == 16000);
  // Inputs that do not fit the graph are left to the run to report.
  CHECK(plan("(input x (f64 ?))\n(input y (f64 ?))\n(output (add x y))",
             {{DType::F64, {3}}, {DType::F64, {4}}}) == 0);
}

TEST_CASE("a scan adds its stored steps and its body's values") {
  // x0: 800 bytes; 10 stored steps: 8000; the body's add: 800 per step;
  // the constants 10 and 1.0: 8 bytes each.
  CHECK(plan("(input x0 (f64 100))\n"
             "(output (get 0 (scan :n-steps 10 :sit-sot (x0) (fn (h) (add h 1.0)))))",
             {{DType::F64, {100}}}) == 9616);
}

TEST_CASE("plans far beyond any machine are computed and saturate instead of overflowing") {
  CHECK(plan("(input x (f64 1000000000 1000))\n(output (exp x))",
             {{DType::F64, {1000000000, 1000}}}) == 16000000000000);
  const std::string text =
      "(input x (bool 4611686018427387904))\n(let a (logical_not x))\n"
      "(output (logical_and a (logical_not a)))";
  CHECK(plan(text, {{DType::Bool, {std::int64_t{1} << 62}}}) ==
        std::numeric_limits<std::int64_t>::max());
}
