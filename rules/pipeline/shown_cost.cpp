#include "rules/pipeline/shown_cost.hpp"

#include "rules/tensor/extract_graph.hpp"

#include <fmt/format.h>

#include <cmath>

namespace eqsat::rules {

ShownCost shown_cost(double cost) {
  if (!(cost < kGradCost)) return {std::nullopt, 0};
  const double unstable = std::floor(cost / kUnstableCost);
  if (unstable == 0) return {cost, 0};
  // The penalty was added to the estimate, rounding it to the ulp of 1e12
  // (about 1e-4 ns): the difference is rounded to 0.01 ns.
  return {std::round((cost - unstable * kUnstableCost) * 100) / 100,
          static_cast<std::size_t>(unstable)};
}

std::string describe(const ShownCost& cost) {
  if (!cost.ns) return "not estimated (an unexpanded grad)";
  if (cost.unstable == 0) return fmt::format("{:.1f}", *cost.ns);
  return fmt::format("{:.1f} (+{} unstable form{}, never preferred)", *cost.ns, cost.unstable,
                     cost.unstable == 1 ? "" : "s");
}

}  // namespace eqsat::rules
