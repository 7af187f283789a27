#include "egraph/extract/shared_choice.hpp"

#include "egraph/extract/dag_cost.hpp"

#include <algorithm>
#include <chrono>

namespace eqsat::egraph {

namespace {

// The usable nodes reading each candidate, by candidate index, in node order.
std::vector<std::vector<ProblemNodeId>> candidate_readers(
    const ExtractionProblem& problem, std::span<const ProblemClassId> candidates) {
  const std::vector<bool> usable = usable_nodes(problem);
  std::vector<std::vector<ProblemNodeId>> readers(candidates.size());
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
  return readers;
}

}  // namespace

Extraction share_candidates(const ExtractionProblem& problem, const Extraction& x,
                            std::span<const ProblemClassId> candidates, int max_passes) {
  const auto start = std::chrono::steady_clock::now();
  if (candidates.empty() || x.optimal) return x;
  const auto readers = candidate_readers(problem, candidates);
  const auto reads = [&](std::optional<ProblemNodeId> n, ProblemClassId c) {
    return n && std::ranges::count(problem.node(*n).children, c) > 0;
  };
  Extraction best = x;
  // Only a candidate that two reached classes could read (or one, when the
  // candidate is reached already: a root, say), one of them not reading it
  // yet, can save anything.
  const auto promising = [&](std::size_t i) {
    std::size_t reached = best.choices[candidates[i].value] ? 1 : 0;
    bool all_read = true;
    for (ProblemNodeId n : readers[i]) {
      const ProblemClassId c = problem.node(n).eclass;
      if (!best.choices[c.value]) continue;
      ++reached;
      all_read = all_read && reads(best.choices[c.value], candidates[i]);
    }
    return reached >= 2 && !all_read;
  };
  // Most extractions have none: then nothing more is computed.
  bool any = false;
  for (std::size_t i = 0; i < candidates.size() && !any; ++i) any = promising(i);
  if (!any) return x;
  // Classes the extraction does not reach take their cheapest tree, so a
  // candidate brought in by a trial comes with a sensible term below it.
  const auto base = cheapest_tree_choices(problem);
  std::vector<std::optional<ProblemNodeId>> full;
  const auto fill = [&] {
    full = best.choices;
    for (std::size_t c = 0; c < full.size(); ++c)
      if (!full[c]) full[c] = base[c];
  };
  fill();
  DagCost dag_cost(problem);
  std::vector<std::pair<ProblemClassId, std::optional<ProblemNodeId>>> changed;
  for (int pass = 0; pass < max_passes; ++pass) {
    bool kept = false;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (!promising(i)) continue;
      changed.clear();
      for (ProblemNodeId n : readers[i]) {
        const ProblemClassId c = problem.node(n).eclass;
        auto& choice = full[c.value];
        if (reads(choice, candidates[i]) && problem.node(*choice).cost <= problem.node(n).cost)
          continue;
        changed.emplace_back(c, choice);
        choice = n;
      }
      const auto cost = dag_cost(full);
      if (cost && *cost < best.dag_cost) {
        best = make_extraction(problem, full, 0.0, false);
        fill();
        kept = true;
      } else {
        for (auto it = changed.rbegin(); it != changed.rend(); ++it)
          full[it->first.value] = it->second;
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
