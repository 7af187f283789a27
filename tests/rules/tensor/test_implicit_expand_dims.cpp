// The implicit-expand-dims built-in applier (rules/tensor/implicit_expand_dims.hpp):
// an expand_dims(x, 0) operand of a broadcasting elementwise op is x when
// another operand has at least its rank, on static and unknown lengths, with
// the values (±∞ and NaN) and failures of the graph as written.
#include "tests/support/check_optimizes.hpp"
#include "tests/support/f64_array.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("implicit-expand-dims: broadcasting adds the leading axis itself",
          "[rules][implicit-expand-dims]") {
  const std::string in = "(input x (f64 ?)) (input m (f64 ? ?)) (input c (bool ?))\n";
  check_optimizes(in + "(output (mul (expand_dims x :axis 0) m))", in + "(output (mul x m))");
  check_optimizes(in + "(output (sub m (expand_dims x :axis 0)))", in + "(output (sub m x))");
  check_optimizes(in + "(output (where (expand_dims c :axis 0) m 0.0))",
                  in + "(output (where c m 0.0))");
  // Two new leading axes, one at a time.
  const std::string r3 = "(input x (f64 ?)) (input z (f64 ? ? ?))\n";
  check_optimizes(r3 + "(output (add (expand_dims (expand_dims x :axis 0) :axis 0) z))",
                  r3 + "(output (add x z))");
  const std::string g = in + "(output (maximum (expand_dims x :axis 0) m))";
  check_same_values(shipped_rules(), g,
                    {f64_vector({1, kInf, kNaN}), f64_array({2, 3}, {0, 5, 1, -kInf, kNaN, 2}),
                     ops::Array(ops::DType::Bool, {1})});
}

TEST_CASE("implicit-expand-dims: an axis broadcasting would not add stays",
          "[rules][implicit-expand-dims]") {
  const std::string in = "(input x (f64 ?)) (input y (f64 ?)) (input m (f64 ? ?))\n";
  // The result's leading axis comes from the expand_dims alone.
  CHECK(count_ops(optimized(graph(in + "(output (add (expand_dims x :axis 0) y))")),
                  ops::OpKind::ExpandDims) == 1);
  // A new trailing axis is not what broadcasting adds.
  CHECK(count_ops(optimized(graph(in + "(output (add (expand_dims x :axis 1) m))")),
                  ops::OpKind::ExpandDims) == 1);
  // Lengths that do not broadcast fail as written.
  const ops::Graph out = optimized(graph(in + "(output (add (expand_dims x :axis 0) m))"));
  CHECK(count_ops(out, ops::OpKind::ExpandDims) == 0);
  CHECK_THROWS(backend::compile(out).run(
      {f64_vector({1, 2}), f64_vector({0}), f64_array({2, 3}, {0, 1, 2, 3, 4, 5})}));
}
