#include "egraph/extract_shared_choice.hpp"

#include <algorithm>
#include <chrono>

namespace eqsat::egraph {

Extraction share_candidates(const ExtractionProblem& problem, const Extraction& x,
                            std::span<const ProblemClassId> candidates, int max_passes) {
  const auto start = std::chrono::steady_clock::now();
  if (candidates.empty() || x.optimal) return x;
  const std::vector<bool> usable = usable_nodes(problem);
  // The usable nodes reading each candidate, by candidate index.
  std::vector<std::vector<ProblemNodeId>> readers(candidates.size());
  {
    std::vector<std::int64_t> index(problem.num_classes(), -1);
    for (std::size_t i = 0; i < candidates.size(); ++i)
      index[candidates[i].value] = static_cast<std::int64_t>(i);
    for (std::uint32_t n = 0; n < problem.num_nodes(); ++n) {
      if (!usable[n]) continue;
      for (ProblemClassId c : problem.node(ProblemNodeId{n}).children)
        if (index[c.value] >= 0) {
          auto& r = readers[static_cast<std::size_t>(index[c.value])];
          if (r.empty() || r.back().value != n) r.push_back(ProblemNodeId{n});
        }
    }
  }
  std::vector<double> own_cost(problem.num_nodes());
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n)
    own_cost[n] = problem.node(ProblemNodeId{n}).cost;

  // Classes the extraction does not reach take their cheapest tree, so a
  // candidate brought in by a trial comes with a sensible term below it.
  const auto base = cheapest_tree_choices(problem);

  Extraction best = x;
  for (int pass = 0; pass < max_passes; ++pass) {
    bool kept = false;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (readers[i].size() < 2) continue;
      std::vector<std::optional<ProblemNodeId>> preferred = best.choices;
      for (std::size_t c = 0; c < preferred.size(); ++c)
        if (!preferred[c]) preferred[c] = base[c];
      for (ProblemNodeId n : readers[i]) {
        auto& choice = preferred[problem.node(n).eclass.value];
        const bool reads_candidate =
            choice && std::ranges::count(problem.node(*choice).children, candidates[i]) > 0;
        if (!reads_candidate || own_cost[n.value] < own_cost[choice->value]) choice = n;
      }
      const auto choices = acyclic_choices(problem, preferred, own_cost);
      Extraction trial = make_extraction(problem, choices, 0.0, false);
      if (trial.dag_cost < best.dag_cost) {
        best = std::move(trial);
        kept = true;
      }
    }
    if (!kept) break;
  }
  best.optimal = x.optimal;
  best.seconds =
      x.seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return best;
}

}  // namespace eqsat::egraph
