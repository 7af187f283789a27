// The parts of reverse-mode differentiation (gradient.hpp) that call each
// other: the backward pass over terms (`vjp`), and the pullbacks of the two
// ops whose pullback needs a body's: scan (a reverse scan) and call (a call
// of the def's pullback def).
#pragma once

#include "ops/term.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace eqsat::rules {

// How a scan's pullback stores what the reverse loop reads (gradient.hpp).
struct ScanPullbackOptions {
  // 0: the forward loop stores every step (the tape). K >= 1: it stores one
  // state every K steps and the reverse loop recomputes each segment.
  std::int64_t checkpoint = 0;
};

// Cotangents of `wrts` given cotangents `seeds` of `outputs` (a seed may be
// nullptr); nullptr for a wrt no output depends on. `masks` (empty, or one
// bool term or nullptr per output) says where a seed is known to be zero:
// an op differentiated there gives a zero cotangent (gradient.hpp's zero
// masks). Throws ops::PullbackError on a path through an op without a
// pullback.
std::vector<ops::TermRef> vjp(std::span<const ops::TermRef> outputs,
                              std::span<const ops::TermRef> seeds,
                              std::span<const ops::TermRef> wrts,
                              const ScanPullbackOptions& options = {},
                              std::span<const ops::TermRef> masks = {});

// One cotangent per operand of `scan` (nullptr: none; operand 0, the body,
// and :n-steps never get one) given one per output (`gouts`, nullptr: none).
std::vector<ops::TermRef> scan_pullback(ops::TermRef scan, const std::vector<ops::TermRef>& gouts,
                                        const ScanPullbackOptions& options);

// One cotangent per operand of `call` (operand 0, the def, gets none) given
// one per output of the def (`gouts`, nullptr: none). It calls the pullback
// def for the outputs that have a cotangent only (built once per def and
// set of such outputs, shared by the calls with that set): a missing
// cotangent is a structural zero, never a `zeros_like` argument multiplied
// by a NaN derivative in the body; a parameter no cotangent reaches gets
// nullptr.
std::vector<ops::TermRef> call_pullback(ops::TermRef call, const std::vector<ops::TermRef>& gouts);

// The pullback def of the def `fn` for cotangents of all its outputs:
// parameters `fn`'s, then one cotangent per float output; outputs one
// cotangent per float parameter, in order (`zeros_like` of the parameter
// where none reaches it). nullptr when `fn` has no float parameter. Built
// once per def (memoized) and keeps `fn`'s `:inline false`.
ops::TermRef pullback_def(ops::TermRef fn);

}  // namespace eqsat::rules
