// The reductions rule set (rules/reductions.rules) and its reduce-chain
// applier, and fast-math's reduction laws: PyTensor's TestReduceChain
// (max∘max exactly; sum∘sum, prod∘prod under fast-math), careduce_of_alloc
// (a reduction over length-1 axes; Σ of a broadcast scalar under
// fast-math), test_local_sum_of_div (Σ(x/c) under fast-math),
// TestReduceJoin (Σ stack(a, b) = a + b; Σ concat under fast-math).
#include "tests/support/check_optimizes.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

ops::Array matrix(ops::Dims dims, std::vector<double> v) {
  ops::Array a(ops::DType::F64, std::move(dims));
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}
const ops::Array kM = matrix({2, 3}, {1, kNaN, -kInf, 4, 0.5, kInf});
}  // namespace

TEST_CASE("reductions: a reduction over a stack of two is their elementwise op",
          "[rules][reductions]") {
  const std::string in = "(input a (f64 3)) (input b (f64 3))\n";
  const std::vector<ops::Array> at = {f64_vector({1, kNaN, kInf}), f64_vector({-kInf, 2, 3})};
  const std::pair<const char*, const char*> cases[] = {
      {"sum", "add"}, {"max", "maximum"}, {"min", "minimum"}, {"prod", "mul"}};
  for (const auto& [r, op] : cases) {
    INFO(r);
    const std::string g = in + "(output (" + r + " (stack a b :axis 0) :axis 0))";
    check_optimizes(g, in + "(output (" + op + " a b))", Match::UpToCommuting);
    check_same_values(shipped_rules(), g, at);
  }
}

TEST_CASE("reductions: max∘max and min∘min are one reduction", "[rules][reductions]") {
  const std::string in = "(input x (f64 2 3))\n";
  check_optimizes(in + "(output (max (max x :axis 1) :axis 0))", in + "(output (max x))");
  check_optimizes(in + "(output (min (min x :axis 0 :keepdims true) :axis 1 :keepdims true))",
                  in + "(output (min x :axis (0 1) :keepdims true))");
  check_same_values(shipped_rules(), in + "(output (max (max x :axis 1) :axis 0))", {kM});
  // sum∘sum changes rounding: only under fast-math
  const std::string ss = in + "(output (sum (sum x :axis 1) :axis 0))";
  CHECK(count_ops(optimized(graph(ss)), ops::OpKind::Sum) == 2);
  check_optimizes(fast_math_rules(), ss, in + "(output (sum x))");
  check_optimizes(fast_math_rules(), in + "(output (prod (prod x :axis 0) :axis 0))",
                  in + "(output (prod x))");
  check_same_values(fast_math_rules(), ss, {kM});
}

TEST_CASE("reductions: over axes of length 1 a reduction is a reshape", "[rules][reductions]") {
  const std::string in = "(input x (f64 3 1))\n";
  for (const char* r : {"sum", "prod", "max", "min", "mean"}) {
    INFO(r);
    const std::string g = in + "(output (" + r + " x :axis 1))";
    check_optimizes(g, in + "(output (reshape x :shape (3)))");
    check_same_values(shipped_rules(), g, {matrix({3, 1}, {kNaN, -kInf, -0.0})});
    check_optimizes(in + "(output (" + r + " x :axis 1 :keepdims true))", in + "(output x)");
  }
}

TEST_CASE("reductions: fast-math moves scalars out and splits concatenations",
          "[rules][reductions][fast-math]") {
  const std::string in = "(input x (f64 4)) (input c f64)\n";
  check_optimizes(fast_math_rules(), in + "(output (sum (div x c)))",
                  in + "(output (div (sum x) c))");
  check_optimizes(fast_math_rules(), in + "(output (sum (mul x c)))",
                  in + "(output (mul (sum x) c))", nullptr, Match::UpToCommuting);
  // Large enough that the concatenation's copy costs more than a sum.
  const std::string uv = "(input u (f64 100000)) (input v (f64 50000))\n";
  check_optimizes(fast_math_rules(), uv + "(output (sum (concat (exp u) (log v))))",
                  uv + "(output (add (sum (exp u)) (sum (log v))))", nullptr, Match::UpToCommuting);
  const std::string small = "(input u (f64 3)) (input v (f64 2))\n";
  check_same_values(fast_math_rules(), small + "(output (sum (concat (exp u) (log v))))",
                    {f64_vector({0.5, 1, -2}), f64_vector({3, 0.25})});
  const std::string a = "(input a f64)\n";
  check_optimizes(fast_math_rules(), a + "(output (sum (broadcast_to a :shape (3 4))))",
                  a + "(output (mul a 12.0))", nullptr, Match::UpToCommuting);
  // careduce_of_alloc on a vector and a column: the sum of the copies.
  const std::string vt = "(input v (f64 4)) (input t (f64 3 1))\n";
  check_optimizes(fast_math_rules(), vt + "(output (sum (broadcast_to v :shape (3 4))))",
                  vt + "(output (mul (sum v) 3.0))", nullptr, Match::UpToCommuting);
  check_optimizes(fast_math_rules(), vt + "(output (sum (broadcast_to t :shape (2 3 4))))",
                  vt + "(output (mul (sum t) 8.0))", nullptr, Match::UpToCommuting);
  check_same_values(
      fast_math_rules(),
      vt + "(output (sum (broadcast_to v :shape (3 4)))) "
           "(output (sum (broadcast_to t :shape (2 3 4))))",
      {f64_vector({0.5, -1, 2, 1e300}), ops::Array::filled(ops::DType::F64, {3, 1}, -0.25)});
}
