// Push-out and vectorization of loop bodies (PyTensor's PushOutSeqScan and
// PushOutScanOutput), built on StepBatcher (scan_pushout_batch.hpp):
//
//   scan-push-out-seqs     the first maximal body subterm that is
//                          elementwise in the current sequence elements
//                          and non-sequences (or a dot with a non-sequence,
//                          or a reduction over its own axes) and reads no
//                          state is computed outside on whole sequences and
//                          read as a new sequence
//   scan-push-out-nitsots  (get J s) of a nit-sot whose body value is such
//                          a subterm = that value computed outside (where
//                          it reads the new value of a state, the stacked
//                          state (get I s) stands for it: PyTensor's
//                          PushOutScanOutput); of a loop-invariant nit-sot
//                          = its value broadcast along a new leading axis
//
// Never for until-loops (they may stop early). Each keeps the old loop;
// extraction picks, and a loop nobody reads any more is left out.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_push_out_seqs(TensorEGraph& g);
egraph::Rewrite make_scan_push_out_nitsots(TensorEGraph& g);

}  // namespace eqsat::rules
