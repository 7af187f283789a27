#include "egraph/extract_greedy_dag.hpp"

#include <chrono>
#include <memory>
#include <utility>

namespace eqsat::egraph {

namespace {

// The classes a term DAG uses, each with the cost of its node there, sorted
// by class.
using CostSet = std::vector<std::pair<ProblemClassId, double>>;

// Union by class; where both hold a class, `a`'s entry is kept.
CostSet merge(const CostSet& a, const CostSet& b) {
  CostSet out;
  out.reserve(a.size() + b.size());
  auto i = a.begin(), j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (i->first < j->first) {
      out.push_back(*i++);
    } else if (j->first < i->first) {
      out.push_back(*j++);
    } else {
      out.push_back(*i++);
      ++j;
    }
  }
  out.insert(out.end(), i, a.end());
  out.insert(out.end(), j, b.end());
  return out;
}

// The cost set of `node` from its children's final sets.
CostSet node_cost_set(const ProblemNode& node,
                      const std::vector<std::shared_ptr<const CostSet>>& sets) {
  CostSet set{{node.eclass, node.cost}};
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    if (i > 0 && node.children[i] == node.children[i - 1]) continue;
    set = merge(set, *sets[node.children[i].value]);
  }
  return set;
}

double total(const CostSet& set) {
  double sum = 0.0;
  for (const auto& entry : set) sum += entry.second;
  return sum;
}

}  // namespace

Extraction extract_greedy_dag(const ExtractionProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<const CostSet>> sets(problem.num_classes());  // of resolved classes
  std::vector<double> totals(problem.num_classes(), 0.0);
  const auto choices = best_first_choices(
      problem,
      [&](ProblemNodeId n) {
        const ProblemNode& node = problem.node(n);
        // One child: its set plus this node, without building the union.
        if (node.children.size() == 1) {
          return node.cost + totals[node.children.front().value];
        }
        return total(node_cost_set(node, sets));
      },
      [&](ProblemClassId eclass, ProblemNodeId n) {
        auto set = std::make_shared<const CostSet>(node_cost_set(problem.node(n), sets));
        totals[eclass.value] = total(*set);
        sets[eclass.value] = std::move(set);
      });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return make_extraction(problem, choices, seconds, false);
}

}  // namespace eqsat::egraph
