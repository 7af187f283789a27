// The pow-nested-squaring built-in applier
// (rules/tensor/pow_nested_squaring.hpp) under fast-math: PyTensor's
// test_local_pow_to_nested_squaring (x¹⁵ in 6 ops, x¹⁶ in 4, their
// inverses with one reciprocal more) and every exponent 3..40 either sign
// are proven equal to their chains; integer and non-integer exponents, and
// the default schedule, keep `pow`.
#include "tests/support/check_optimizes.hpp"

#include <fmt/format.h>

#include <cmath>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const std::string kIn = "(input x (f64 4))\n";
const std::vector<ops::Array> kAt = {f64_vector({1.5, -0.75, 1.03125, -1.25})};

}  // namespace

// The cost model prices one pow below a chain of unfused ops, so
// extraction keeps the pow; the chain is in its e-class all the same.
TEST_CASE("pow-nested-squaring: PyTensor's x¹⁵ and x¹⁶", "[rules][fast-math]") {
  const std::string x2 = "(square x)", x4 = "(square (square x))",
                    x8 = "(square (square (square x)))";
  const std::string x15 = "(mul (mul (mul x " + x2 + ") " + x4 + ") " + x8 + ")";
  const std::string x16 = "(square " + x8 + ")";
  check_proves(fast_math_rules(), kIn + "(output (pow x 15.0)) (output " + x15 + ")");
  check_proves(fast_math_rules(), kIn + "(output (pow x 16.0)) (output " + x16 + ")");
  check_proves(fast_math_rules(), kIn + "(output (pow x -15.0)) (output (reciprocal " + x15 + "))");
  check_proves(fast_math_rules(), kIn + "(output (pow x -16.0)) (output (reciprocal " + x16 + "))");
  // The chain computes the power (to rounding).
  check_same_values(fast_math_rules(), kIn + "(output (sub (pow x 15.0) " + x15 + "))", kAt, 1e-12);
}

TEST_CASE("pow-nested-squaring: every exponent 3..40, both signs", "[rules][fast-math]") {
  for (int n = 3; n <= 40; ++n) {
    for (const int sign : {1, -1}) {
      // x^n by binary powering, written out
      std::string chain, square = "x";
      for (int k = n; k > 0; k >>= 1) {
        if (k & 1) chain = chain.empty() ? square : "(mul " + chain + " " + square + ")";
        if (k > 1) square = "(square " + square + ")";
      }
      if (sign < 0) chain = "(reciprocal " + chain + ")";
      check_proves(fast_math_rules(),
                   kIn + fmt::format("(output (pow x {}.0)) (output {})", sign * n, chain));
    }
  }
}

TEST_CASE("pow-nested-squaring: what stays a pow", "[rules][fast-math]") {
  const ops::Graph g = graph(kIn + "(output (pow x 3.0)) (output (mul (square x) x))");
  // Not without fast-math, nor for a non-integer exponent or integers.
  CHECK(!rules::prove_equal(g, g.outputs[0].term, g.outputs[1].term, shipped_rules()).explanation);
  const ops::Graph h = graph(kIn + "(output (pow x 2.5)) (output (mul (square x) x))");
  CHECK(
      !rules::prove_equal(h, h.outputs[0].term, h.outputs[1].term, fast_math_rules()).explanation);
  const ops::Graph k =
      graph("(input k (i64 3))\n(output (pow k 5)) (output (mul (square (square k)) k))");
  CHECK(
      !rules::prove_equal(k, k.outputs[0].term, k.outputs[1].term, fast_math_rules()).explanation);
}
