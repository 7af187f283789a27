// The `stabilize-through-views` built-in applier (see
// builtin_appliers.hpp): `log` and `exp` commute with the ops that only
// select, move or repeat elements (index, slice, transpose, reshape,
// broadcast_to, expand_dims, squeeze, flip), so a stabilization that needs
// `log` right on top of `softmax`, `sigmoid`, a sum of exponentials, ...
// also applies through them:
//
//   log(V(y)) = V(log y)   when y is softmax, sigmoid, sum, add, exp, or a view
//   exp(V(y)) = V(exp y)   when y is log_softmax, log, log1p, softplus, or a view
//
// e.g. log(slice(softmax x)) = slice(log_softmax x). Exact for every value
// (an elementwise op computes each element alone; the views keep their
// index checks). Only operands a stabilization can use are pushed through,
// so the e-graph does not grow with every log of a view.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_stabilize_through_views(TensorEGraph& g);

}  // namespace eqsat::rules
