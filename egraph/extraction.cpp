#include "egraph/extraction.hpp"

#include "egraph/class_parents.hpp"

#include <deque>
#include <queue>
#include <string>
#include <utility>

namespace eqsat::egraph {

ExtractionError::ExtractionError(ProblemClassId root)
    : std::runtime_error("root class " + std::to_string(root.value) + " has no acyclic term"),
      root_(root) {}

std::vector<std::optional<ProblemNodeId>> acyclic_choices(
    const ExtractionProblem& problem, std::span<const std::optional<ProblemNodeId>> preferred,
    std::span<const double> fallback_score) {
  const ClassParents parents(problem);
  std::vector<std::optional<ProblemNodeId>> chosen(problem.num_classes());
  std::vector<std::uint32_t> pending(problem.num_nodes());
  std::deque<ProblemClassId> preferred_ready;
  // Ready nodes by (score, id): a min-heap.
  using Ready = std::pair<double, std::uint32_t>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> fallback_ready;

  auto becomes_ready = [&](ProblemNodeId n) {
    const ProblemNode& node = problem.node(n);
    if (node.subsumed) return;
    const auto& pref = preferred[node.eclass.value];
    if (pref && *pref == n) preferred_ready.push_back(node.eclass);
    fallback_ready.emplace(fallback_score[n.value], n.value);
  };
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n) {
    pending[n] = parents.distinct_children(ProblemNodeId{n});
    if (pending[n] == 0) becomes_ready(ProblemNodeId{n});
  }
  auto resolve = [&](ProblemClassId eclass, ProblemNodeId n) {
    chosen[eclass.value] = n;
    for (ProblemNodeId parent : parents.of(eclass)) {
      if (--pending[parent.value] == 0) becomes_ready(parent);
    }
  };
  while (true) {
    if (!preferred_ready.empty()) {
      ProblemClassId eclass = preferred_ready.front();
      preferred_ready.pop_front();
      if (!chosen[eclass.value]) resolve(eclass, *preferred[eclass.value]);
    } else if (!fallback_ready.empty()) {
      ProblemNodeId n{fallback_ready.top().second};
      fallback_ready.pop();
      ProblemClassId eclass = problem.node(n).eclass;
      if (!chosen[eclass.value]) resolve(eclass, n);
    } else {
      break;
    }
  }
  return chosen;
}

Extraction make_extraction(const ExtractionProblem& problem,
                           std::span<const std::optional<ProblemNodeId>> choices, double seconds,
                           bool optimal) {
  Extraction result;
  result.choices.assign(problem.num_classes(), std::nullopt);
  result.seconds = seconds;
  result.optimal = optimal;
  for (ProblemClassId root : problem.roots()) {
    if (!choices[root.value]) {
      throw ExtractionError(root);
    }
  }
  // Iterative depth-first search over the chosen nodes; `state` is 0 unseen,
  // 1 on the stack, 2 done.
  std::vector<std::uint8_t> state(problem.num_classes(), 0);
  std::vector<double> tree(problem.num_classes(), 0.0);
  std::vector<std::pair<ProblemClassId, std::size_t>> stack;
  for (ProblemClassId root : problem.roots()) {
    if (state[root.value] == 2) continue;
    stack.emplace_back(root, 0);
    state[root.value] = 1;
    while (!stack.empty()) {
      auto& [eclass, next_child] = stack.back();
      const ProblemNode& node = problem.node(*choices[eclass.value]);
      if (next_child < node.children.size()) {
        ProblemClassId child = node.children[next_child++];
        if (state[child.value] == 1) {
          throw std::logic_error("extraction: chosen nodes form a cycle through class " +
                                 std::to_string(child.value));
        }
        if (state[child.value] == 0) {
          if (!choices[child.value]) {
            throw std::logic_error("extraction: class " + std::to_string(child.value) +
                                   " is used but has no choice");
          }
          state[child.value] = 1;
          stack.emplace_back(child, 0);
        }
        continue;
      }
      double tree_cost = node.cost;
      for (ProblemClassId child : node.children) tree_cost += tree[child.value];
      tree[eclass.value] = tree_cost;
      result.dag_cost += node.cost;
      result.choices[eclass.value] = choices[eclass.value];
      result.order.push_back(eclass);
      state[eclass.value] = 2;
      stack.pop_back();
    }
  }
  for (ProblemClassId root : problem.roots()) result.tree_cost += tree[root.value];
  return result;
}

}  // namespace eqsat::egraph
