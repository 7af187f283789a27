// What a loop may fail on, as fusion needs it (issue 25): the fused loop
// fails where either loop fails, so the outputs of loop A read from it
// gain loop B's failures. That is sound only when B can fail only where A
// fails too: B's failing operands are A's operands as well, B's own
// run-time checks (its step count against its sequences and histories)
// are checks A makes, and B's body cannot fail (A's body failing at the
// same step is not provable). The scan-fusion applier (e-classes) and the
// fusion of extracted loops (terms) describe their loops this way.
#pragma once

#include "ops/attrs.hpp"
#include "ops/type.hpp"

#include <cstdint>
#include <vector>

namespace eqsat::rules {

// One run-time check a loop makes on its own: of the step count (`operand`
// the key of :n-steps), of a sequence's length (`depth` its deepest tap),
// or of a mit-sot's initial history of unknown length (`depth` the
// history's). A check is made by a loop holding the same kind and operand
// with a depth at least as large.
struct OwnCheck {
  enum class Kind : std::uint8_t { StepCount, Sequence, History };
  Kind kind;
  std::uint64_t operand;
  std::int64_t depth;

  bool covers(const OwnCheck& c) const {
    return kind == c.kind && operand == c.operand && depth >= c.depth;
  }
};

struct LoopFailures {
  // Keys of every operand but the body (equal keys: the same value).
  std::vector<std::uint64_t> operands;
  // Keys of the operands that may fail.
  std::vector<std::uint64_t> failing;
  // The body may fail at a step, or a state of unknown shape may change
  // shape (a run-time check of the loop the may-fail facts do not cover).
  bool body = false;
  // The loop's own run-time checks, when they may fail.
  std::vector<OwnCheck> checks;

  bool none() const { return failing.empty() && !body && checks.empty(); }
};

// The checks loop `spec` makes on its own, given each operand's key and
// type (operands[0] the body) and its step count when constant: empty
// when they cannot fail (`own_may_fail` false).
std::vector<OwnCheck> own_checks(const ops::ScanSpec& spec, const std::vector<std::uint64_t>& keys,
                                 const std::vector<const ops::Type*>& types, bool own_may_fail);

// Whether some state's initial value has a type of unknown shape.
bool state_of_unknown_shape(const ops::ScanSpec& spec, const std::vector<const ops::Type*>& types);

// True when running `from` may fail where `into`, running the same number
// of steps, does not. `steps_may_run` false (a step count of 0): bodies run
// no step and cannot fail.
bool adds_failures(const LoopFailures& from, const LoopFailures& into, bool steps_may_run);

}  // namespace eqsat::rules
