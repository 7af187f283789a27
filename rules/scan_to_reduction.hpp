// `scan-to-reduction`: a sit-sot that only accumulates, read at its last
// step, is a reduction over the whole sequences (beyond PyTensor):
//
//   (index (get j (scan :sequences (xs) :sit-sot (h0)
//                   (fn (x h) (add h (f x))))) -1)
//   = (add h0 (sum (f xs) :axis (0)))
//
// for `add`, `mul`, `maximum` and `minimum` (→ sum, prod, max, min over
// axis 0), where f is elementwise (unary, binary, where, cast) in the
// sequence elements, non-sequences and constants, reads no state, and has
// the state's dtype. f is vectorized: each sequence tap becomes the rows of
// the sequence the steps read (a slice), the other operands stay outside
// and broadcast. Not for :until loops, nor for :n-steps unknown while
// optimizing. The old loop stays; the cost model chooses.
//
// Rounding: `maximum` and `minimum` give exactly the loop's values. `add`
// and `mul` re-associate: the loop computes ((h0 + f0) + f1) + ..., the
// reduction h0 + (f0 + f1 + ...) in the executor's order, so float results
// differ by rounding (and, at the edge of the float range, may overflow
// where the loop did not, or the reverse); integer results are exact. A
// loop that runs no step fails at its read, while `sum`/`prod` give h0.
#pragma once

#include "tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_to_reduction(TensorEGraph& g);

}  // namespace eqsat::rules
