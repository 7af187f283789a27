// The `where-constant` built-in applier (see builtin_appliers.hpp): a
// `where` whose condition is a uniform constant is the branch it selects,
// cast and broadcast to the result's (static) type — which the patterns
// where-true and where-false cannot say when the branch is narrower or of
// another dtype than the result (PyTensor's local_useless_switch):
//
//   where(true, a, b)  = broadcast_to(cast(a, dtype), shape)
//   where(false, a, b) = broadcast_to(cast(b, dtype), shape)
//
// Exact for every value (the other branch is never read).
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_where_constant(TensorEGraph& g);

}  // namespace eqsat::rules
