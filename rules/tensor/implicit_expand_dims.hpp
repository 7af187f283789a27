// The `implicit-expand-dims` built-in applier (see builtin_appliers.hpp):
// an operand of a broadcasting elementwise op that is `expand_dims(x, 0)`
// is x when another operand's rank is at least the operand's, as
// broadcasting prepends that axis itself (PyTensor's local_dimshuffle_lift
// on the graphs its implicit broadcasting builds, TestDimshuffleLift's
// test_lift):
//
//   add(expand_dims(x, 0), y) = add(x, y)      for rank(y) > rank(x)
//
// Exact for every value: both sides broadcast the same axes, and fail
// (lengths that do not broadcast) on the same inputs.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_implicit_expand_dims(TensorEGraph& g);

}  // namespace eqsat::rules
