// Loop fusion on an extracted graph. Per-class extraction never picks a
// fused loop (each `get` alone prefers its own, smaller loop, and
// greedy-dag prices the classes one by one), so after extraction the
// optimize pipeline fuses pairs of loops of the chosen graph with the
// layout of scan-fusion (scan_fusion_layout.hpp), one pair at a time,
// keeping a fusion only when what the graph costs to run drops: the cost
// model's op costs over a DAG per body instance, each loop's body paid per
// loop (extract_graph.hpp's DAG cost pays equal body terms of two loops
// once, and so undercounts two loops against one). It runs when a rule
// program uses scan-fusion, on the extracted graph that the pipeline keeps.
//
// Loops in the graph and in loop bodies are paired; bodies of calls kept
// as calls are left as they are (their `def`s keep their names).
#pragma once

#include "backend/cost_model.hpp"
#include "ops/term.hpp"

#include <span>
#include <vector>

namespace eqsat::rules {

// `roots` with pairs of their loops fused while that lowers the cost.
std::vector<ops::TermRef> fuse_extracted_loops(std::span<const ops::TermRef> roots,
                                               const backend::CostModel& model);

}  // namespace eqsat::rules
