#include "egraph/extract/alternatives.hpp"

#include "egraph/extract/dag_cost.hpp"

#include <algorithm>
#include <queue>
#include <set>

namespace eqsat::egraph {

namespace {

// What identifies an extracted DAG: its reached classes' chosen nodes, in
// class order.
std::vector<std::uint32_t> signature(const Extraction& x) {
  std::vector<std::uint32_t> s;
  for (const auto& c : x.choices)
    if (c) s.push_back(c->value);
  return s;
}

}  // namespace

std::vector<Extraction> extract_alternatives(const ExtractionProblem& problem,
                                             const Extraction& best,
                                             const AlternativesOptions& options) {
  std::vector<Extraction> out;
  if (options.count == 0) return out;
  const std::vector<bool> usable = usable_nodes(problem);
  const auto base = cheapest_tree_choices(problem);
  DagCost dag_cost(problem);

  // Found extractions, and a queue of the unexpanded ones by (cost, index).
  std::vector<Extraction> found{best};
  std::set<std::vector<std::uint32_t>> seen{signature(best)};
  using Entry = std::pair<double, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  open.emplace(best.dag_cost, 0);
  std::size_t trials = 0;
  while (!open.empty() && out.size() < options.count) {
    const std::size_t at = open.top().second;
    open.pop();
    out.push_back(found[at]);
    const Extraction x = found[at];
    // Its choices, and the cheapest trees where it reaches nothing.
    std::vector<std::optional<ProblemNodeId>> full = x.choices;
    for (std::size_t k = 0; k < full.size(); ++k)
      if (!full[k]) full[k] = base[k];
    for (ProblemClassId c : x.order) {
      for (ProblemNodeId n : problem.nodes_of(c)) {
        if (!usable[n.value] || x.choices[c.value] == n) continue;
        if (trials >= options.max_trials) break;
        ++trials;
        const auto kept = full[c.value];
        full[c.value] = n;
        const bool acyclic = dag_cost(full).has_value();
        std::optional<Extraction> y;
        if (acyclic) y = make_extraction(problem, full, 0.0, false);
        full[c.value] = kept;
        if (!y || !seen.insert(signature(*y)).second) continue;
        open.emplace(y->dag_cost, found.size());
        found.push_back(std::move(*y));
      }
    }
  }
  // `best` stays first whatever its cost; the rest in cost order.
  std::stable_sort(out.begin() + 1, out.end(), [](const Extraction& a, const Extraction& b) {
    return a.dag_cost < b.dag_cost;
  });
  return out;
}

}  // namespace eqsat::egraph
