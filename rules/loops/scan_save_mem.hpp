// `scan-save-mem`: loops that compute or store only the steps their readers
// use (PyTensor's save_mem). Readers are `index` and axis-0 `slice` with
// constant bounds of a scan output, and `index` by a run-time integer:
//
//   fewer steps  every read output is read only within its first m steps
//                (`(index (get i s) 3)`, `(slice (get i s) :stop 5)`, or a
//                negative bound when the steps are known): the loop runs
//                m steps (:n-steps m, `(minimum n m)`, or sequences sliced
//                to m rows plus their deepest tap); with a run-time index
//                i among the readers, m is a run-time value:
//                (minimum N (maximum m' ...)) steps, see README.md.
//   keep last    every reader of output i reads only its last k steps
//                (`(index (get i s) -1)`, `(slice (get i s) :start -k)`):
//                output i gets `:keep k`; the outputs whose keep does not
//                change are merged with the old loop's, so one loop serves
//                every reader. An output no `get` reads keeps 1 step.
//
// Each adds the new loop and merges each reader with the same read on it;
// the old loop stays, and the cost model (which counts the bytes a loop
// stores and its trip count) chooses.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_save_mem(TensorEGraph& g);

}  // namespace eqsat::rules
