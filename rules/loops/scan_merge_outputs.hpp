// scan-merge-outputs: two outputs of one loop that always hold the same
// values become one. Nit-sots whose body values are one e-class; states
// (sit-sots, or mit-sots with the same taps) with the same initial value
// whose next values are one e-class once the second state's parameters
// read the first's (then, by induction over the steps, they never part).
// `(get J S)` of the later output is merged with `(get I S)`;
// scan-remove-unused then drops the output nobody reads any more.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_merge_outputs(TensorEGraph& g);

}  // namespace eqsat::rules
