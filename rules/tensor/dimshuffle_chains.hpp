// The `dimshuffle-chains` built-in applier (see builtin_appliers.hpp):
// PyTensor's DimShuffle merging (TestDimshuffleLift) for any shapes, known
// or not. A transpose, expand_dims or squeeze of a transpose, expand_dims
// or squeeze of x maps each result axis to an axis of x or to a new axis of
// length 1; that map is written again in one canonical order:
//
//   squeeze the axes of x it drops, transpose what is left (unless in
//   order), then expand_dims each new axis (ascending)
//
// so transpose(transpose x) and squeeze(expand_dims x) are x, and any chain
// of the three collapses step by step. An axis of x of static length 1
// that the chain drops and a new axis it adds are the same axis moved
// (PyTensor's "useless dimshuffle on a broadcastable axis"). Exact; x's
// squeezed axes are the chain's, so no run-time length check is lost.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_dimshuffle_chains(TensorEGraph& g);

}  // namespace eqsat::rules
