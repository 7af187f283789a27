// The gradient half of `--validate` (validate.hpp): the written graph
// cannot run a `grad`, so an output `(grad COST WRT)` is checked against
// central finite differences of the written COST (finite_difference.hpp)
// instead of a written value. Only smooth points count: an input set
// holding ±∞ or NaN is skipped, and so is an element where the cost is not
// finite nearby or where the forward and backward differences disagree (a
// kink such as |x| at 0, a jump, a rounding cliff).
#pragma once

#include "ops/array.hpp"
#include "ops/graph.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::rules {

// At most this many elements of each gradient are compared per input set
// (evenly spaced): each costs two runs of the cost.
inline constexpr std::int64_t kMaxGradientElements = 32;

// Finite-difference steps (relative to max(1, |x|)) and tolerances, by the
// precision the graph computes in: |g − fd| ≤ tol·(1 + max(|g|, |fd|))
// plus the rounding of the cost divided by the step.
inline constexpr double kGradientStep = 1e-6;
inline constexpr double kGradientTolerance = 1e-4;
inline constexpr double kGradientStepF32 = 1e-2;
inline constexpr double kGradientToleranceF32 = 5e-2;

// Whether a `grad` occurs under `root` (bodies included).
bool holds_grad(ops::TermRef root);

// A difference between an optimized gradient and finite differences.
struct GradientMismatch {
  std::size_t output = 0;  // index in the graph's outputs
  std::string difference;
};

class GradientValidation {
 public:
  // `outputs`: indices of the outputs holding a grad; those of the form
  // `(grad COST WRT)` with COST free of grad are checked, the others not.
  GradientValidation(const ops::Graph& written, const ops::Graph& optimized,
                     const std::vector<std::size_t>& outputs, bool f32);

  // The outputs checked and those that cannot be (by index).
  const std::vector<std::size_t>& checked() const { return checked_; }
  const std::vector<std::size_t>& unchecked() const { return unchecked_; }

  // Checks every checked output on one input set; the first difference.
  // `skipped` is set when the set holds ±∞ or NaN (nothing compared).
  std::optional<GradientMismatch> check(const std::vector<ops::Array>& inputs, bool& skipped);

 private:
  struct Checked {
    std::size_t output;
    ops::TermRef cost;
    std::size_t wrt;
  };
  std::optional<std::string> check_one(const Checked& c, const std::vector<ops::Array>& inputs);

  const ops::Graph& written_;
  const ops::Graph& optimized_;
  std::vector<Checked> grads_;
  std::vector<std::size_t> checked_, unchecked_;
  double step_, tol_, eps_;
};

}  // namespace eqsat::rules
