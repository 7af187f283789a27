#include "egraph/extract/bottom_up.hpp"

#include <chrono>

namespace eqsat::egraph {

Extraction extract_bottom_up(const ExtractionProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> tree(problem.num_classes(), 0.0);  // final once the class is resolved
  const auto choices = best_first_choices(
      problem,
      [&](ProblemNodeId n) {
        const ProblemNode& node = problem.node(n);
        double total = node.cost;
        for (ProblemClassId child : node.children) total += tree[child.value];
        return total;
      },
      [&](ProblemClassId eclass, ProblemNodeId n) {
        const ProblemNode& node = problem.node(n);
        double total = node.cost;
        for (ProblemClassId child : node.children) total += tree[child.value];
        tree[eclass.value] = total;
      });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return make_extraction(problem, choices, seconds, false);
}

}  // namespace eqsat::egraph
