// The logsumexp rule set (rules/logsumexp.rules): PyTensor's
// test_special.py log-sum-exp cases — a log of any number of exponentials
// added in any bracketing is a chain of logaddexp, finite where the sum
// overflows — and softmax written out over a whole vector of unknown length
// inside a def. Under fast-math, log((2 + x) − 1) is log1p x.
#include "tests/support/check_optimizes.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kIn = "(input a (f64 4)) (input b (f64 4)) (input c (f64 4)) (input d (f64 4))\n";

double lse(std::vector<double> v) {
  double m = -kInf;
  for (double x : v) m = std::max(m, x);
  if (std::isinf(m)) return m;
  double s = 0;
  for (double x : v) s += std::exp(x - m);
  return m + std::log(s);
}
}  // namespace

TEST_CASE("logsumexp: log of four exponentials is a log-sum-exp", "[rules][logsumexp]") {
  const std::vector<ops::Array> at = {
      f64_vector({1000, 0, -kInf, 1}), f64_vector({999, -1000, -kInf, 2}),
      f64_vector({-5, 1000, -kInf, 3}), f64_vector({1001, 2, -kInf, 4})};
  for (const char* sum : {"(add (add (add (exp a) (exp b)) (exp c)) (exp d))",
                          "(add (add (exp a) (exp b)) (add (exp c) (exp d)))"}) {
    INFO(sum);
    const std::string g = kIn + "(output (log " + sum + "))";
    const ops::Graph out = optimized(graph(g));
    CHECK(!contains(out.outputs[0].term, ops::OpKind::Exp));
    const ops::Array got = run_optimized(g, at);
    for (std::int64_t i = 0; i < 4; ++i) {
      const double want =
          lse({at[0].element(i), at[1].element(i), at[2].element(i), at[3].element(i)});
      INFO("element " << i << ": got " << got.element(i) << ", want " << want);
      CHECK(got.element(i) == Approx(want).margin(1e-12));
    }
  }
  // NaN and +∞ stay what the written form gives.
  check_same_values(shipped_rules(), kIn + "(output (log (add (add (exp a) (exp b)) (exp c))))",
                    {f64_vector({kNaN, kInf, 0, 1}), f64_vector({1, kInf, kInf, 2}),
                     f64_vector({2, 3, -kInf, kNaN}), f64_vector({0, 0, 0, 0})});
}

TEST_CASE("logsumexp: softmax written out over a vector in a def", "[rules][logsumexp]") {
  const std::string g = R"(
    (input x (f64 3))
    (def f (fn ((v (f64 ?))) (div (exp v) (sum (exp v)))))
    (output (call f x)))";
  const ops::Array got = run_optimized(g, {f64_vector({1000, 999, 998})});
  const double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  CHECK(got.element(0) == Approx(1 / z));
  CHECK(got.element(2) == Approx(std::exp(-2.0) / z));
}

TEST_CASE("logsumexp: log((2 + x) − 1) is log1p x under fast-math",
          "[rules][logsumexp][fast-math]") {
  const std::string in = "(input x (f64 3))\n";
  check_optimizes(fast_math_rules(), in + "(output (log (sub (add 2.0 x) 1.0)))",
                  in + "(output (log1p x))");
  const ops::Graph out = optimized(graph(in + "(output (log (sub (add 2.0 x) 1.0)))"));
  CHECK(!contains(out.outputs[0].term, ops::OpKind::Log1p));
}
