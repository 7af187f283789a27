// The `dim-through` built-in applier (see builtin_appliers.hpp): the length
// of an axis read through the op that made the array, so that asking for a
// shape needs none of the work that computes the values (PyTensor's
// infer_shape; in particular a loop read only for its shapes disappears):
//
//   (dim (index x i) :axis a)    = (dim x :axis a+1)        i a scalar
//   (dim (expand_dims x :axis e) :axis a) = (dim x :axis a) for a < e,
//                                  (dim x :axis a-1) for a > e
//   (dim (resize_rows x n) :axis a) = n for a = 0, (dim x :axis a) else
//   (dim (OP x y ...) :axis a)   = (dim x :axis a') for an elementwise OP
//                                  whose other operands have no axis a, or
//                                  length 1 there (a' aligned from the right);
//                                  broadcast_like likewise
//   (dim (OP x y ...) :axis a)   = (dim (broadcast_like (broadcast_like x y)
//                                  ...) :axis a) otherwise, for an OP that
//                                  fails only where its operands do not
//                                  broadcast: the shape without OP's work,
//                                  failing where OP fails (PyTensor's
//                                  TestShapeRewriter: `v + m`)
//   (dim (get k S) :axis a), a≥1 = axis a-1 of what output k holds per step:
//       a sit-sot's:  (dim init :axis a-1)
//       a mit-sot's:  (dim init :axis a)      (its initial history's rows)
//       a nit-sot whose body output is a parameter: that parameter's
//       outer value, at axis a for a sequence or mit-sot tap, a-1 for a
//       sit-sot or non-sequence.
//
// Axis 0 of a loop output (the step count) is left to the analysis, which
// folds it when the step count is known.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_dim_through(TensorEGraph& g);

}  // namespace eqsat::rules
