#include "rules/pipeline/shown_cost.hpp"

#include "rules/tensor/extract_graph.hpp"

#include <fmt/format.h>

#include <cmath>

namespace eqsat::rules {

ShownCost shown_cost(double cost) {
  if (!(cost < kGradCost)) return {std::nullopt, 0};
  const double unstable = std::floor(cost / kUnstableCost);
  return {cost - unstable * kUnstableCost, static_cast<std::size_t>(unstable)};
}

std::string describe(const ShownCost& cost) {
  if (!cost.ns) return "not estimated (an unexpanded grad)";
  if (cost.unstable == 0) return fmt::format("{:.1f}", *cost.ns);
  return fmt::format("{:.1f} (+{} unstable form{}, never preferred)", *cost.ns, cost.unstable,
                     cost.unstable == 1 ? "" : "s");
}

}  // namespace eqsat::rules
