// The constants rule set (rules/constants.rules): a negation moves into a
// constant factor, −1/x is −(1/x) (PyTensor's local_mul_specialize and
// TestSigmoidRewrites' −1/(1 + e⁻ˣ)), and a uniform constant that does not
// widen the other operand becomes its scalar, inside loop bodies too (a
// constant non-sequence is then one number in the body, not a loop input).
#include "tests/support/check_optimizes.hpp"

#include "ops/graph_printer.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("constants: −(c·x) is (−c)·x, one multiplication", "[rules][constants]") {
  const std::string g = "(input x (f64 5)) (output (neg (mul 2.0 x)))";
  check_optimizes(g, "(input x (f64 5)) (output (mul -2.0 x))", Match::UpToCommuting);
  check_same_values(shipped_rules(), g, {f64_vector({1.5, -0.0, kInf, -kInf, kNaN})});
  // v · −1 · (−m) is one product (PyTensor's test_local_mul_specialize)
  const std::string vm = "(input v (f64 5)) (input m (f64 5)) (output (mul (mul v -1.0) (neg m)))";
  check_optimizes(vm, "(input v (f64 5)) (input m (f64 5)) (output (mul v m))",
                  Match::UpToCommuting);
  check_same_values(shipped_rules(), vm,
                    {f64_vector({1, kInf, kNaN, -2, 0}), f64_vector({3, 2, 1, -kInf, -0.0})});
}

TEST_CASE("constants: −1 / (1 + e⁻ˣ) is −σ(x)", "[rules][constants]") {
  const std::string g = "(input x (f64 6)) (output (div -1.0 (add 1.0 (exp (neg x)))))";
  check_optimizes(g, "(input x (f64 6)) (output (neg (sigmoid x)))");
  check_same_values(shipped_rules(), g, {f64_vector({0, 1, -3, kInf, -kInf, kNaN})});
}

TEST_CASE("constants: a uniform array operand becomes its scalar", "[rules][constants]") {
  const std::string g = "(input x (f64 3)) (output (mul x (full 2.5 :shape (3))))";
  check_optimizes(g, "(input x (f64 3)) (output (mul x 2.5))", Match::UpToCommuting);
  check_same_values(shipped_rules(), g, {f64_vector({1, kInf, kNaN})});
  // A constant that widens x stays: the result has its shape.
  const ops::Graph wide =
      optimized(graph("(input x (f64 1)) (output (add x (full 2.0 :shape (3))))"));
  CHECK(wide.outputs[0].term->tensor_type().dims == ops::Dims{3});
}

TEST_CASE("constants: a constant non-sequence becomes a scalar in the loop body",
          "[rules][constants][scan]") {
  const std::string g = R"(
    (input xs (f64 5 8))
    (input h0 (f64 8))
    (let s (scan :sequences (xs) :sit-sot (h0) :non-sequences ((full 0.5 :shape (8)))
                 (fn (x_t h c) (add (mul h c) x_t))))
    (output (get 0 s)))";
  const ops::Graph out = optimized(graph(g));
  const std::string text = ops::print_graph(out);
  INFO(text);
  CHECK(text.find(":non-sequences") == std::string::npos);
  CHECK(!contains(out.outputs[0].term, ops::OpKind::Full));
  CHECK(!contains(out.outputs[0].term, ops::OpKind::BroadcastTo));
  ops::Array xs(ops::DType::F64, {5, 8}), h0(ops::DType::F64, {8});
  for (std::int64_t i = 0; i < 40; ++i) xs.data<double>()[i] = (i % 7) - 3.0;
  for (std::int64_t i = 0; i < 8; ++i) h0.data<double>()[i] = i == 3 ? kInf : i == 5 ? kNaN : i;
  check_same_values(shipped_rules(), g, {xs, h0});
}
