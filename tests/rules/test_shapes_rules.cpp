// The shapes rule set (rules/shapes.rules) with `dim` known nonnegative
// (ops/op_list.hpp): PyTensor's TestShapeRewriter and
// local_useless_elemwise_comparison on shapes — `dim x < 0` is false,
// `dim x >= 0` true, `max(dim x, 0)` is `dim x` — and the same facts for
// nonnegative floats (at NaN too).
#include "tests/support/check_optimizes.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kIn = "(input x (f64 ? 3))\n";
}  // namespace

TEST_CASE("shapes: comparisons and max of a length with 0 fold", "[rules][shapes]") {
  check_optimizes(kIn + "(output (maximum (dim x :axis 0) 0))", kIn + "(output (dim x :axis 0))");
  check_optimizes(kIn + "(output (maximum 0 (dim x :axis 0)))", kIn + "(output (dim x :axis 0))");
  check_optimizes(kIn + "(output (lt (dim x :axis 0) 0))", kIn + "(output false)");
  check_optimizes(kIn + "(output (ge (dim x :axis 0) 0))", kIn + "(output true)");
}

TEST_CASE("shapes: sums of lengths and a length against -1", "[rules][shapes]") {
  // test_shape_add_inequality and test_equality_shapes on vectors of unknown length
  const std::string in = "(input x (f64 ?)) (input y (f64 ?))\n";
  check_optimizes(in + "(output (lt (add (dim x) (dim y)) 0))", in + "(output false)");
  check_optimizes(in + "(output (ge (add (dim x) (dim y)) 0))", in + "(output true)");
  check_optimizes(in + "(output (eq (dim x) -1))", in + "(output false)");
  check_optimizes(in + "(output (eq -1 (dim y)))", in + "(output false)");
  // dim x = 0 depends on x: it stays, true for an empty x.
  const std::string eq0 = in + "(output (eq (dim x) 0))";
  CHECK(count_ops(optimized(graph(eq0)), ops::OpKind::Eq) == 1);
  CHECK(run_optimized(eq0, {f64_vector({}), f64_vector({1})}).data<bool>()[0]);
}

TEST_CASE("shapes: the same facts for nonnegative floats keep NaN", "[rules][shapes]") {
  const std::string in = "(input v (f64 5))\n";
  const std::string g = in + "(output (maximum (exp v) 0.0))";
  check_optimizes(g, in + "(output (exp v))");
  check_same_values(shipped_rules(), g, {f64_vector({0, -kInf, kInf, kNaN, -800})});
  const std::string lt = in + "(output (lt (square v) 0.0))";
  check_same_values(shipped_rules(), lt, {f64_vector({0, -kInf, kInf, kNaN, -800})});
  CHECK(!contains(optimized(graph(lt)).outputs[0].term, ops::OpKind::Square));
  // 0 ≤ x² is not folded for floats: NaN is not ≥ 0.
  const std::string ge = in + "(output (ge (square v) 0.0))";
  CHECK(contains(optimized(graph(ge)).outputs[0].term, ops::OpKind::Square));
  check_same_values(shipped_rules(), ge, {f64_vector({0, -kInf, kInf, kNaN, -800})});
}
