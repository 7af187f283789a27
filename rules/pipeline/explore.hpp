// The alternative graphs a rule program reaches, cheapest first, for
// `eqsat explore`: after the same saturation as `optimize`, up to K
// distinct graphs equivalent to the input (the input itself among the
// candidates), each with its estimated cost.
#pragma once

#include "rules/pipeline/optimize.hpp"

#include "ops/graph.hpp"

#include <cstddef>
#include <vector>

namespace eqsat::rules {

struct Alternative {
  ops::Graph graph;
  // As OptimizeReport::cost_after counts it: kUnstableCost for each form a
  // stabilizing rewrite replaced, so a stable graph always ranks first.
  double cost = 0;
};

// Up to `count` distinct graphs in non-decreasing cost: the extractions of
// rules/tensor/extract_graph.hpp's extract_alternative_terms (with the extracted
// loops fused as `optimize` fuses them) and the input graph. Inputs keep
// their order, outputs their names; a body that is a def of the input
// keeps the def's name. `report` gets the saturation's report.
std::vector<Alternative> explore(const ops::Graph& graph, const RuleProgram& rules,
                                 std::size_t count, OptimizeReport* report = nullptr,
                                 OptimizeOptions options = {});

}  // namespace eqsat::rules
