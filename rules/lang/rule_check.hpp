// Checks rewrite rules numerically (`eqsat check-rules`): instantiates the
// left side with random operands of several dtypes and shapes (inputs,
// absolute values of inputs, random constants, identity matrices) and
// random attribute values, keeps the instances that type-check and satisfy
// the rule's conditions (evaluated by the tensor analysis, as in the
// optimizer), builds the right side as the typed applier would, runs both
// sides on the CPU executor and compares the values.
//
// Values: every other instance is finite (ordinary numbers, 0, −0, ±1 and
// values whose exp overflows) or draws the IEEE corners (±∞, NaN, 0, −0,
// ±1 beside ordinary numbers, nothing that overflows); integers include
// extremes that wrap. Two elements agree when both are NaN, equal (+0 and
// −0 too), or close (relative and absolute tolerance 1e-6 for f64, 1e-3
// for f32); in a finite instance with an operand that may overflow (|v| ≥
// 100), a left side that is ±∞ where the right side is finite, or NaN
// anywhere, also agrees — an overflow the right side avoids (stabilization,
// docs/architecture.md decision 13); elsewhere a NaN or ∞ on the left is a
// domain error or a pole, and the right side must give it too. At the corners
// the sides agree exactly. Instances whose right side is ill-typed or of
// another type are refused by typed rewriting and skipped.
#pragma once

#include "rules/lang/rule_ast.hpp"

#include "ops/graph.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace eqsat::rules {

struct RuleVerdict {
  // FiniteOnly: a `:domain finite` rule that agrees on every finite
  // instance and differs at an IEEE corner (the counter-example), as it
  // says it may.
  enum class Kind { Sound, Unsound, Untested, FiniteOnly };
  Kind kind = Kind::Untested;
  std::size_t instances = 0;   // instances evaluated on both sides
  std::string counterexample;  // for Unsound, FiniteOnly: the operands and both values
};

// The most random instances a check may try per direction (the command
// line's and Python's bound: a typo cannot start a run of days).
inline constexpr std::size_t kMaxCheckAttempts = 100'000;

struct RuleCheckOptions {
  std::uint64_t seed = 1;
  // Random instances tried per direction: this many finite ones, and as
  // many at the IEEE corners.
  std::size_t attempts = 300;
  // Called before each attempt: an interrupt check (Python's Ctrl-C), which
  // stops the check by throwing. Empty: nothing.
  std::function<void()> before_attempt = {};
  // Operands are graph inputs (or their absolute values) unless a condition
  // asks for a constant or an identity matrix: instances whose left side
  // does not fold away while optimizing.
  bool prefer_inputs = false;
};

// Checks `rule` (both directions of a birewrite). Deterministic for a seed.
RuleVerdict check_rule(const ast::Rewrite& rule, const RuleCheckOptions& options = {});

std::string_view to_string(RuleVerdict::Kind kind);

// Up to `count` random instances of the rule's left side (its right side
// for `reverse`, a birewrite's NAME-rev) that type-check, meet the rule's
// conditions and whose other side has the same type: each a graph whose
// one output is the instance and whose inputs are its operands.
std::vector<ops::Graph> left_side_instances(const ast::Rewrite& rule, bool reverse,
                                            std::size_t count,
                                            const RuleCheckOptions& options = {});

}  // namespace eqsat::rules
