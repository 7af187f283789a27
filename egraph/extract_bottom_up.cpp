#include "egraph/extract_bottom_up.hpp"

#include "egraph/class_parents.hpp"

#include <chrono>
#include <deque>
#include <limits>

namespace eqsat::egraph {

namespace {

// Per-class tree-cost minimum, by a worklist of nodes: a node is revisited
// whenever one of its child classes gets cheaper. Updates only on a strict
// decrease, so with costs >= 0 the chosen nodes never form a cycle.
std::vector<std::optional<ProblemNodeId>> tree_cost_choices(const ExtractionProblem& problem) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const ClassParents parents(problem);
  std::vector<double> cost(problem.num_classes(), kInf);
  std::vector<std::optional<ProblemNodeId>> best(problem.num_classes());
  std::vector<bool> queued(problem.num_nodes(), false);
  std::deque<ProblemNodeId> work;
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n) {
    const ProblemNode& node = problem.node(ProblemNodeId{n});
    if (!node.subsumed && node.children.empty()) {
      work.push_back(ProblemNodeId{n});
      queued[n] = true;
    }
  }
  while (!work.empty()) {
    ProblemNodeId n = work.front();
    work.pop_front();
    queued[n.value] = false;
    const ProblemNode& node = problem.node(n);
    double total = node.cost;
    for (ProblemClassId child : node.children) total += cost[child.value];
    if (!(total < cost[node.eclass.value])) continue;  // also skips inf and NaN
    cost[node.eclass.value] = total;
    best[node.eclass.value] = n;
    for (ProblemNodeId parent : parents.of(node.eclass)) {
      if (!queued[parent.value]) {
        queued[parent.value] = true;
        work.push_back(parent);
      }
    }
  }
  return best;
}

}  // namespace

Extraction extract_bottom_up(const ExtractionProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  const auto preferred = tree_cost_choices(problem);
  std::vector<double> score(problem.num_nodes());
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n)
    score[n] = problem.node(ProblemNodeId{n}).cost;
  const auto choices = acyclic_choices(problem, preferred, score);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return make_extraction(problem, choices, seconds, false);
}

}  // namespace eqsat::egraph
