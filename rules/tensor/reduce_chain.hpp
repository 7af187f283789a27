// The `reduce-chain` and `reduce-chain-rounding` built-in appliers (see
// builtin_appliers.hpp): reductions whose axes need arithmetic on
// attributes or the operand's static shape, so no pattern can say them.
//
// reduce-chain (exact for every value):
//   max(max(x, A), B)            = max(x, A ∪ B')  (B' is B in x's axes;
//   min(min(x, A), B)            = min(x, A ∪ B')   both keepdims, or neither)
//   r(x, A) for A axes of static length 1, r in sum prod max min mean
//                                = x (keepdims), or x reshaped to the result
// reduce-chain-rounding (changes the order of a sum or product: fast-math):
//   sum(sum(x, A), B)            = sum(x, A ∪ B')
//   prod(prod(x, A), B)          = prod(x, A ∪ B')
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_reduce_chain(TensorEGraph& g);
egraph::Rewrite make_reduce_chain_rounding(TensorEGraph& g);

}  // namespace eqsat::rules
