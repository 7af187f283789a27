// The `inline-calls` built-in applier (see builtin_appliers.hpp):
// instantiates a called body with the call's arguments in place of its
// parameters, in the e-graph.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_inline_calls(TensorEGraph& g);

}  // namespace eqsat::rules
