// Costs as users see them (`optimize --report`, `explore`, Python): the
// executor's estimated time in ns, without the extractor's internal
// penalties. Extraction adds kUnstableCost (1e12) per form a stabilizing
// rewrite replaced, so that the stable form always wins, and kGradCost
// (1e18) per `grad` not yet expanded, which cannot run at all
// (rules/tensor/extract_graph.hpp); neither is time.
//
//   ShownCost c = shown_cost(report.cost_before);   // 1000000001656 -> {1656, 1}
//   describe(c)                                     // "1656.0 (+1 unstable form)"
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace eqsat::rules {

struct ShownCost {
  std::optional<double> ns;  // the estimate; none while the graph holds a grad
  std::size_t unstable = 0;  // unstable forms penalized (never preferred)
};

// `cost` (as OptimizeReport and explore count it) split into its estimate
// and its penalties.
ShownCost shown_cost(double cost);

// "1145.0", "1656.0 (+1 unstable form, never preferred)", or "not
// estimated (an unexpanded grad)".
std::string describe(const ShownCost& cost);

}  // namespace eqsat::rules
