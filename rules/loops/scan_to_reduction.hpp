// `scan-to-reduction`: a sit-sot that only accumulates, read at its last
// step, is a reduction over the whole sequences (beyond PyTensor):
//
//   (index (get j (scan :sequences (xs) :sit-sot (h0)
//                   (fn (x h) (add h (f x))))) -1)
//   = (add h0 (sum (f xs) :axis (0)))
//
// for `add`, `sub` (state first), `mul`, `maximum`, `minimum` and
// `logaddexp` (→ sum, prod, max, min, logsumexp over axis 0: the
// catalogue's folds, ops::folding_reduction), where f reads no state, has the state's
// dtype and vectorizes over the steps (StepBatcher: elementwise ops,
// reductions, dot, axis moves, in the sequence elements, non-sequences and
// constants). f's values at every step are computed at once: each
// sequence tap becomes the rows the steps read, the rest stays outside.
// Not for :until loops, nor for :n-steps unknown while optimizing. The old
// loop stays; the cost model chooses. An f that is the same every step
// has a closed form (h0 + n·v, h0·vⁿ, max(h0, v), ...). A sum of per-step
// outer products
// becomes a batched product summed over the steps, which the linalg rule
// `sum-batched-outer` turns into one matrix product.
//
// Rounding: `maximum` and `minimum` give exactly the loop's values. `add`,
// `sub`, `mul` and `logaddexp` re-associate: the loop computes ((h0 + f0) + f1) + ...,
// the reduction h0 + (f0 + f1 + ...) in the executor's order, so float
// results differ by rounding (and, at the edge of the float range, may
// overflow where the loop did not, or the reverse); integer results are
// exact. A loop that runs no step fails at its read, while `sum`/`prod`
// give h0.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_to_reduction(TensorEGraph& g);

}  // namespace eqsat::rules
