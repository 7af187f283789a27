// scan-fusion: two loops that run the same number of steps (the same
// :n-steps value, or the same sequences) with the same stop condition,
// neither reading the other, become one loop (PyTensor's ScanMerge; layout
// in scan_fusion_layout.hpp): (get I a) = (get I' f), (get J b) = (get J' f).
//
// The old loops stay. The fused loop is cheaper only where both loops are
// used, which per-class extraction cannot see (each get alone prefers its
// own smaller loop): the optimize pipeline therefore also fuses loops of
// the extracted graph when that lowers its cost (scan_fusion_extracted.hpp).
// In the e-graph, only loops that are not themselves fused are paired, so
// the e-graph grows by at most one loop per pair.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_fusion(TensorEGraph& g);

}  // namespace eqsat::rules
