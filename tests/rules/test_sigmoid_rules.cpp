// The sigmoid rule set (rules/sigmoid.rules) with stabilize's: PyTensor's
// test_local_reciprocal_1_plus_exp, TestSigmoidRewrites' spellings,
// test_local_logit_sigmoid, test_local_odds_sigmoid and σ(logit p); each
// optimizes to the one op PyTensor asserts, and is exact where the
// written form overflows (x = ±800) or at ±∞ and NaN.
#include "tests/support/check_optimizes.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kIn = "(input x (f64 7))\n";
const std::vector<double> kX = {0, 1.5, -3, 800, -800, kInf, -kInf};

double sigmoid(double x) {
  return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x));
}

// Output 0 of `g` optimized, at `x`, is `want` (NaN where want is NaN).
void check_values(const std::string& g, const std::vector<double>& x,
                  const std::vector<double>& want) {
  const ops::Array got = run_optimized(g, {f64_vector(x)});
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double v = got.element(static_cast<std::int64_t>(i));
    INFO("x = " << x[i] << ": got " << v << ", want " << want[i]);
    if (std::isnan(want[i]))
      CHECK(std::isnan(v));
    else
      CHECK(v == Approx(want[i]).margin(1e-15));
  }
}
}  // namespace

TEST_CASE("sigmoid: 1/(1 + eˣ) in its spellings is σ(−x)", "[rules][sigmoid]") {
  std::vector<double> want;
  for (double x : kX) want.push_back(sigmoid(-x));
  for (const char* spelling : {"(reciprocal (add 1.0 (exp x)))", "(reciprocal (add (exp x) 1.0))",
                               "(div 1.0 (add 1.0 (exp x)))", "(pow (add 1.0 (exp x)) -1.0)"}) {
    INFO(spelling);
    const std::string g = kIn + "(output " + spelling + ")";
    check_optimizes(g, kIn + "(output (sigmoid (neg x)))");
    check_values(g, kX, want);
  }
}

TEST_CASE("sigmoid: logit σ(x) = x and the odds σ/(1 − σ) = eˣ", "[rules][sigmoid]") {
  const std::string logit = kIn + "(output (log (div (sigmoid x) (sub 1.0 (sigmoid x)))))";
  check_optimizes(logit, kIn + "(output x)");
  const std::string split = kIn + "(output (sub (log (sigmoid x)) (log (sub 1.0 (sigmoid x)))))";
  check_optimizes(split, kIn + "(output x)");
  const std::string odds = kIn + "(output (div (sigmoid x) (sub 1.0 (sigmoid x))))";
  check_optimizes(odds, kIn + "(output (exp x))");
  check_values(logit, kX, kX);
  check_values(split, kX, kX);
}

TEST_CASE("sigmoid: σ(logit p) = p on [0, 1], NaN elsewhere", "[rules][sigmoid]") {
  const std::vector<double> p = {0, 1, 0.3, 2, -1, kNaN, kInf};
  const std::vector<double> want = {0, 1, 0.3, kNaN, kNaN, kNaN, kNaN};
  for (const char* logit : {"(log (div x (sub 1.0 x)))", "(sub (log x) (log1p (neg x)))"}) {
    INFO(logit);
    const std::string g = kIn + "(output (sigmoid " + logit + "))";
    const ops::Graph out = optimized(graph(g));
    CHECK(!contains(out.outputs[0].term, ops::OpKind::Sigmoid));
    CHECK(!contains(out.outputs[0].term, ops::OpKind::Log));
    check_values(g, p, want);
    check_same_values(shipped_rules(), g, {f64_vector(p)});
  }
}
