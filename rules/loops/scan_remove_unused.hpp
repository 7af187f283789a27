// scan-remove-unused (PyTensor's scan_remove_unused, split per reader): a
// loop keeps only what its readers need.
//
// For each `(get I S)` in the e-graph, and for the set of all the gets of S
// it holds, the outputs kept are those read and the states they depend on
// through the body (the dependency closure over the body's outputs, the
// stop flag's closure always included: states that feed only each other go
// together). The rebuilt loop then drops
//   - the other outputs (mit-sots, sit-sots, nit-sots);
//   - the sequence taps, mit-sot taps and non-sequences the kept outputs do
//     not read (a sequence left without taps is dropped; without `:n-steps`
//     a sequence's last tap stays unless the step count is known, which
//     then becomes `:n-steps`; a mit-sot's initial history is cut to its
//     new deepest tap);
//   - the recurrence of a state no kept output reads: it becomes a nit-sot
//     (no initial value read).
// `(get I S)` is merged with the same output of the new loop; when every
// output stays, in the same order, the loops themselves are merged. The old
// loop stays in the e-graph; extraction picks.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_remove_unused(TensorEGraph& g);

}  // namespace eqsat::rules
