// Checks rewrite rules numerically (`eqsat check-rules`): instantiates the
// left side with random operands of several dtypes and shapes (inputs,
// absolute values of inputs, random constants, identity matrices) and
// random attribute values, keeps the instances that type-check and satisfy
// the rule's conditions (evaluated by the tensor analysis, as in the
// optimizer), builds the right side as the typed applier would, runs both
// sides on the CPU executor and compares the values.
//
// Values: float operands mix ordinary numbers with 0, −0, ±1 and either
// values whose exp overflows or ±∞ and NaN; integers include extremes that
// wrap. Two elements agree when both are NaN, equal, or close (relative and
// absolute tolerance 1e-6 for f64, 1e-3 for f32); when every operand is
// finite, a left side that is ±∞ where the right side is finite, or NaN
// anywhere, also agrees — an overflow the right side avoids
// (stabilization). Instances
// whose right side is
// ill-typed or of another type are refused by typed rewriting and skipped.
#pragma once

#include "rules/lang/rule_ast.hpp"

#include "ops/graph.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace eqsat::rules {

struct RuleVerdict {
  enum class Kind { Sound, Unsound, Untested };
  Kind kind = Kind::Untested;
  std::size_t instances = 0;   // instances evaluated on both sides
  std::string counterexample;  // for Unsound: the operands and both values
};

// The most random instances a check may try per direction (the command
// line's and Python's bound: a typo cannot start a run of days).
inline constexpr std::size_t kMaxCheckAttempts = 100'000;

struct RuleCheckOptions {
  std::uint64_t seed = 1;
  std::size_t attempts = 300;  // random instances tried per direction
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
