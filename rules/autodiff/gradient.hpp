// Reverse-mode differentiation of terms (docs/architecture.md decision 7): one
// backward pass over the DAG under a cost term, in reverse topological
// order, each shared subterm visited once, cotangents of a term's uses
// accumulated with `add`, each op's step its pullback from rules/autodiff/pullback.hpp.
//
// Scans: the pullback is a reverse scan (scan_pullback.cpp). It runs the
// steps backwards over the flipped rows each step read (sequence taps,
// previous states, mit-sot taps) and the output cotangents, carrying the
// states' cotangents (for a mit-sot, a window of `depth` rows owed by later
// steps' reads) and summing the non-sequences'; its nit-sots are the
// sequences' cotangents. Every kind of slot is supported: sequences at any
// taps, mit-sots, sit-sots, nit-sots, non-sequences, :keep (the pullback
// reads the same scan keeping every step), integer slots (no cotangent),
// and loops whose number of steps is only known when they run (`:until`,
// sequences of unknown length): the reverse loop runs over the steps the
// forward loop ran, the stop flag gets no cotangent. The reverse loop has
// only the slots its body reads, and :keep 1 on the carried cotangents.
//
// Calls: the pullback of `(call F ARGS...)` is a call of F's pullback def
// (vjp.hpp: built once per def, shared by every call, `:inline false`
// kept), which recomputes F's body and returns its parameters' cotangents.
//
// Zero cotangents stay zero: a value no cotangent reaches gets no pullback
// term at all (a structural zero: nullptr, never zeros times a derivative
// that may be NaN); in the branch of a `where` not taken, and at the
// elements an indexing op does not read, ops whose derivative may be
// infinite there (log at 0, exp overflowing) give a zero cotangent, not
// 0 * inf = NaN (rules/autodiff/README.md, "Zero masks").
#pragma once

#include "ops/term.hpp"

#include <cstdint>

namespace eqsat::rules {

struct GradientOptions {
  // `(grad COST WRT :checkpoint K)`: K >= 1 stores one state every K steps
  // of each loop on the path instead of every step, and the reverse loop
  // recomputes each segment of K steps; 0 stores every step.
  std::int64_t checkpoint = 0;
};

// The gradient of the float scalar `cost` with respect to `wrt` (a float
// graph input, or a body parameter `nominal` when `cost` is a body-level
// term), as a term of wrt's type; `zeros_like(wrt)` when cost does not
// depend on it. Bodies (`fn`) are closed, so a nominal inside a nested body
// is never `wrt`. Throws ops::PullbackError when the path from wrt to cost
// crosses an op without a pullback (an unexpanded `grad`) or a shape the
// pullbacks need statically.
ops::TermRef gradient(ops::TermRef cost, ops::TermRef wrt, const GradientOptions& options = {});

}  // namespace eqsat::rules
