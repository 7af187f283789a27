// The fast-math rule set (rules/fast-math.rules) under `--fast-math` (the
// default schedule with fast-math saturated too): PyTensor's
// TestAlgebraicCanonizer ((2x)/(4y), 2x/2, v·0, y − y), test_local_pow_specialize
// (x⁻², x^½, x^−½; nested squarings: tensor/test_pow_nested_squaring.cpp),
// test_inequality_with_self, TestExpLog's products of exponentials,
// and the dot of a zero matrix. Each law needs finite inputs or changes
// rounding, so the default schedule leaves these graphs as written.
#include "tests/support/check_optimizes.hpp"

#include <cmath>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const std::string kIn = "(input x (f64 4)) (input y (f64 4)) (input z (f64 4))\n";

// `start` becomes `goal` under --fast-math and stays unchanged without it;
// the values agree (within rounding) at finite inputs.
void check_fast(const std::string& start, const std::string& goal) {
  check_optimizes(fast_math_rules(), kIn + start, kIn + goal, nullptr, Match::UpToCommuting);
  check_same_values(
      fast_math_rules(), kIn + start,
      {f64_vector({1.5, -2, 0.25, 3}), f64_vector({2, 0.5, -1, 4}), f64_vector({-0.5, 1, 2, 0.75})},
      1e-12);
}
}  // namespace

TEST_CASE("fast-math: constants cancel and products of zero vanish", "[rules][fast-math]") {
  check_fast("(output (div (mul 2.0 x) (mul 4.0 y)))", "(output (mul 0.5 (div x y)))");
  check_fast("(output (div (mul 2.0 x) 2.0))", "(output x)");
  check_fast("(output (mul x 0.0))", "(output (broadcast_to 0.0 :shape (4)))");
  check_fast("(output (sub y y))", "(output (broadcast_to 0.0 :shape (4)))");
  // Without --fast-math, x · 0 stays (∞ · 0 is NaN).
  CHECK(contains(optimized(graph(kIn + "(output (mul x 0.0))")).outputs[0].term, ops::OpKind::Mul));
}

TEST_CASE("fast-math: comparisons of a value with itself fold", "[rules][fast-math]") {
  check_optimizes(fast_math_rules(), kIn + "(output (le x x))",
                  kIn + "(output (broadcast_to true :shape (4)))");
  check_optimizes(fast_math_rules(), kIn + "(output (ge x x))",
                  kIn + "(output (broadcast_to true :shape (4)))");
  check_optimizes(fast_math_rules(), kIn + "(output (eq x x))",
                  kIn + "(output (broadcast_to true :shape (4)))");
  check_optimizes(fast_math_rules(), kIn + "(output (ne x x))",
                  kIn + "(output (broadcast_to false :shape (4)))");
}

TEST_CASE("fast-math: small powers become square, sqrt and reciprocal", "[rules][fast-math]") {
  check_fast("(output (pow (abs x) 0.5))", "(output (sqrt (abs x)))");
  // The cost model prices one pow below two unfused ops, so extraction
  // keeps these pows; the rewrites are in the e-graph all the same.
  check_proves(fast_math_rules(), kIn + "(output (pow x -2.0)) (output (reciprocal (square x)))");
  check_proves(fast_math_rules(), kIn + "(output (pow x -0.5)) (output (reciprocal (sqrt x)))");
  // Without fast-math x^-2 stays a pow.
  const ops::Graph g = graph(kIn + "(output (pow x -2.0)) (output (reciprocal (square x)))");
  CHECK(!rules::prove_equal(g, g.outputs[0].term, g.outputs[1].term, shipped_rules()).explanation);
}

TEST_CASE("fast-math: products and quotients of exponentials merge", "[rules][fast-math]") {
  check_fast("(output (mul (mul (exp x) y) (exp z)))", "(output (mul (exp (add x z)) y))");
  check_fast("(output (mul (exp x) (exp (neg x))))", "(output (broadcast_to 1.0 :shape (4)))");
  check_fast("(output (div (exp x) (exp x)))", "(output (broadcast_to 1.0 :shape (4)))");
  check_fast("(output (div (mul (exp z) y) (exp x)))", "(output (mul (exp (sub z x)) y))");
}

TEST_CASE("fast-math: a product with a zero matrix is zeros", "[rules][fast-math]") {
  const std::string in = "(input a (f64 3 4))\n";
  check_optimizes(fast_math_rules(), in + "(output (dot (zeros :shape (2 3)) a))",
                  in + "(output (broadcast_to 0.0 :shape (2 4)))");
  check_optimizes(fast_math_rules(), in + "(output (dot a (zeros_like (transpose a))))",
                  in + "(output (broadcast_to 0.0 :shape (3 3)))");
}

TEST_CASE("fast-math: --fast-math saturates the set with the default schedule",
          "[rules][fast-math]") {
  const auto& steps = fast_math_rules().schedule().steps;
  REQUIRE(steps.size() == shipped_rules().schedule().steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const bool has = std::ranges::find(steps[i].rulesets, "fast-math") != steps[i].rulesets.end();
    CHECK(has == (steps[i].kind == rules::ast::ScheduleStep::Kind::Saturate));
  }
}
