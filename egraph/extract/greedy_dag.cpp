#include "egraph/extract/greedy_dag.hpp"

#include "egraph/extract/cost_sets.hpp"

#include <chrono>

namespace eqsat::egraph {

Extraction extract_greedy_dag(const ExtractionProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  CostSets sets;
  std::vector<CostSets::Set> class_set(problem.num_classes(), CostSets::kEmpty);  // resolved ones
  // By node, once scored: the union of its children's sets (it is scored
  // once, and its children are final by then).
  std::vector<CostSets::Set> below(problem.num_nodes(), CostSets::kEmpty);
  const auto choices = best_first_choices(
      problem,
      [&](ProblemNodeId n) {
        const ProblemNode& node = problem.node(n);
        CostSets::Set set = CostSets::kEmpty;
        for (ProblemClassId child : node.children) set = sets.unite(set, class_set[child.value]);
        below[n.value] = set;
        return node.cost + sets.total(set);
      },
      [&](ProblemClassId eclass, ProblemNodeId n) {
        sets.set_cost(eclass.value, problem.node(n).cost);
        class_set[eclass.value] = sets.insert(below[n.value], eclass.value);
      });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return make_extraction(problem, choices, seconds, false);
}

}  // namespace eqsat::egraph
