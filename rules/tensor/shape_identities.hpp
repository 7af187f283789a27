// The `shape-identities` built-in applier (see builtin_appliers.hpp):
// shape, indexing and cast ops that do nothing, which need the operand's static
// shape or arithmetic on attributes, so no pattern can say them:
//
//   slice x covering its whole axis (start 0, step 1)     = x (any length when
//     its bounds are only start 0 or none, step 1 or none)
//   reshape x to x's own (static) shape                    = x
//   broadcast_to x to x's own (static) shape               = x
//   transpose x by the identity permutation                = x
//   transpose(transpose(x, p), q)                          = transpose(x, p∘q)
//   flip x along axes of length 1 only                     = x
//   set_slice(x, v) over the whole of x                    = v cast and broadcast to x
//   set_slice(x, v) over a whole axis reversed (step -1)   = flip of v cast and broadcast
//   inc_slice(z, v) over the whole of z, z uniform zero    = v cast and broadcast to z
//   slice(set_slice(x, v, S), S)                            = set_slice(slice(x, S), v)
//     over all of the region (inc_slice likewise): the region alone written
//   inc_slice(x, v) over the whole of x                    = x + v cast to x's dtype
//
// On lengths unknown statically v must provably not widen x (static
// lengths, dim symbols: tensor_analysis.hpp's broadcasts_to), and is
// broadcast with broadcast_like: an unrelated v of 1 element set into an
// x of 3 gives 3 elements, and of 3 into 1 fails. An inc_slice of an
// unrelated v of unknown length is x + set_slice(zeros_like(x), v): the
// set_slice fails exactly where v does not fit x (broadcast_like would
// widen an x of 1 element to v's 3 where the inc_slice fails).
//   concat(a, e...) with each e of static length 0         = a cast to the result
//   cast x to the dtype x has                              = x
//
// The last two are what gradients of slices and indexing produce
// (rules/autodiff/shape_pullbacks.hpp) when the slice is the whole array.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_shape_identities(TensorEGraph& g);

}  // namespace eqsat::rules
