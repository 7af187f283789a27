// The `view-chains` built-in applier (see builtin_appliers.hpp): chains of
// views that are one view, which need the operand's static shape or
// arithmetic on attributes, so no pattern can say them (PyTensor's
// reshape fusion, local_subtensor_merge and useless-slice rewrites):
//
//   reshape|squeeze|expand_dims of reshape|squeeze|expand_dims of x
//                                       = reshape(x) to the static result shape
//   slice(slice(x, a, s₁), a, s₂)      = slice(x, a, s) (axis a of static length,
//                                        or both forward: starts and stops >= 0,
//                                        steps >= 1, any length)
//   index(slice(x, 0, s), i)           = index(x, j) for a constant i in range
//                                        (or i >= 0 and s forward with no stop)
//   slice(x, a, ::−1) over the whole axis = flip(x, a)
//
// Exact, and no index check is lost: a merged slice never reads out of
// range, and index(slice(...), i) needs i proven in range.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_view_chains(TensorEGraph& g);

}  // namespace eqsat::rules
