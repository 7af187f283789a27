// The built-in applier `expand-gradients` (docs/architecture.md decision 7): each
// class holding `(grad COST WRT)` is merged with the gradient term of the
// best term for COST at that moment.
//
// At search time (a clean e-graph) it extracts the cheapest terms for every
// grad's COST and WRT with the backend's cost model (default weights, as
// `extract_terms` does for the optimize pipeline); applying a match runs
// reverse-mode differentiation (gradient.hpp) on that term, adds the
// gradient term and merges it with the grad's class when the types agree.
// Only classes holding nothing but grads are searched (others were
// expanded already), and a grad whose COST term still holds a grad waits
// for a later iteration: run the phase for several iterations and nested
// grads expand innermost first. A grad it cannot expand (a shape the
// pullbacks need statically, or no grad of the phase could be expanded) is
// left in place, refused and counted with its message (`refused()`,
// `errors()`), never thrown.
#pragma once

#include "rules/tensor/refusing_applier.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_expand_gradients(TensorEGraph& g);

}  // namespace eqsat::rules
