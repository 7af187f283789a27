// Reverse-mode differentiation of terms (DESIGN.md decision 7): one
// backward pass over the DAG under a cost term, in reverse topological
// order, each shared subterm visited once, cotangents of a term's uses
// accumulated with `add`, each op's step its pullback from ops/pullback.hpp.
// A scan's pullback is a reverse scan (built here: it needs the pullback of
// the body, a vector-Jacobian product over body terms): it runs the steps
// backwards over the flipped sequences, the states each step read and the
// output cotangents, carrying the states' cotangents (for a mit-sot, a
// window of `depth` rows owed by later steps' reads) and summing the
// non-sequences' ones. Supported: sequences at any taps (the number of
// steps known statically, or a single sequence without :n-steps), mit-sots,
// sit-sots, nit-sots, non-sequences, :keep (the pullback reads the same
// scan keeping every step), integer sequences and states (indices,
// counters: no cotangent); :until is not.
#pragma once

#include "ops/term.hpp"

namespace eqsat::rules {

// The gradient of the float scalar `cost` with respect to `wrt` (a graph
// input, or a body parameter `nominal` when `cost` is a body-level term),
// as a term of wrt's type; `zeros_like(wrt)` when cost does not depend on
// it. Calls on the way are inlined first (their bodies instantiated with
// their arguments); bodies (`fn`) are closed, so a nominal inside a nested
// body is never `wrt`. Throws ops::PullbackError when the path from wrt to
// cost crosses an op without a pullback (grad, a call not inlined, an
// unsupported scan: "grad: differentiating through scan is not supported
// yet (WHY)") or a shape the pullbacks need statically.
ops::TermRef gradient(ops::TermRef cost, ops::TermRef wrt);

// `t` with every call whose body has a term output replaced by that body
// on the call's arguments, and `(get I (call F ...))` by F's output I.
// Bodies are left as they are.
ops::TermRef inline_calls_in_term(ops::TermRef t);

}  // namespace eqsat::rules
