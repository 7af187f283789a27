#include "egraph/extract/extraction.hpp"

#include "support/internal_error.hpp"

#include "egraph/extract/class_parents.hpp"

#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>

namespace eqsat::egraph {

ExtractionError::ExtractionError(ProblemClassId root)
    : std::runtime_error("root class " + std::to_string(root.value) + " has no acyclic term"),
      root_(root) {}

std::vector<bool> usable_nodes(const ExtractionProblem& problem) {
  const auto num_nodes = static_cast<std::uint32_t>(problem.num_nodes());
  std::vector<bool> usable(num_nodes);
  for (std::uint32_t n = 0; n < num_nodes; ++n)
    usable[n] = !problem.node(ProblemNodeId{n}).subsumed;
  if (!problem.has_forbidden()) return usable;
  // Resolve classes with permitted nodes while any is ready; only then let
  // the ready forbidden node of lowest id resolve its class.
  enum class Seen : std::uint8_t { Open, Permitted, NeedsForbidden };
  const ClassParents parents(problem);
  std::vector<Seen> state(problem.num_classes(), Seen::Open);
  std::vector<std::uint32_t> pending(num_nodes);
  std::vector<std::uint32_t> permitted;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> forbidden;
  auto becomes_ready = [&](std::uint32_t n) {
    if (!usable[n]) return;
    if (problem.node(ProblemNodeId{n}).forbidden) {
      forbidden.push(n);
    } else {
      permitted.push_back(n);
    }
  };
  for (std::uint32_t n = 0; n < num_nodes; ++n) {
    pending[n] = parents.distinct_children(ProblemNodeId{n});
    if (pending[n] == 0) becomes_ready(n);
  }
  while (!permitted.empty() || !forbidden.empty()) {
    std::uint32_t n;
    if (!permitted.empty()) {
      n = permitted.back();
      permitted.pop_back();
    } else {
      n = forbidden.top();
      forbidden.pop();
    }
    const ProblemNode& node = problem.node(ProblemNodeId{n});
    Seen& s = state[node.eclass.value];
    if (s != Seen::Open) continue;
    s = node.forbidden ? Seen::NeedsForbidden : Seen::Permitted;
    for (ProblemNodeId parent : parents.of(node.eclass)) {
      if (--pending[parent.value] == 0) becomes_ready(parent.value);
    }
  }
  for (std::uint32_t n = 0; n < num_nodes; ++n) {
    const ProblemNode& node = problem.node(ProblemNodeId{n});
    if (node.forbidden && state[node.eclass.value] != Seen::NeedsForbidden) usable[n] = false;
  }
  return usable;
}

std::vector<std::optional<ProblemNodeId>> best_first_choices(
    const ExtractionProblem& problem, const std::function<double(ProblemNodeId)>& score,
    const std::function<void(ProblemClassId, ProblemNodeId)>& on_resolve) {
  const ClassParents parents(problem);
  const std::vector<bool> usable = usable_nodes(problem);
  std::vector<std::optional<ProblemNodeId>> chosen(problem.num_classes());
  std::vector<std::uint32_t> pending(problem.num_nodes());
  // Ready nodes by (score, id): a min-heap.
  using Ready = std::pair<double, std::uint32_t>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;

  auto becomes_ready = [&](ProblemNodeId n) {
    const ProblemNode& node = problem.node(n);
    if (!usable[n.value] || chosen[node.eclass.value]) return;
    ready.emplace(score(n), n.value);
  };
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n) {
    pending[n] = parents.distinct_children(ProblemNodeId{n});
  }
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n) {
    if (pending[n] == 0) becomes_ready(ProblemNodeId{n});
  }
  while (!ready.empty()) {
    const ProblemNodeId n{ready.top().second};
    ready.pop();
    const ProblemClassId eclass = problem.node(n).eclass;
    if (chosen[eclass.value]) continue;
    chosen[eclass.value] = n;
    if (on_resolve) on_resolve(eclass, n);
    for (ProblemNodeId parent : parents.of(eclass)) {
      if (--pending[parent.value] == 0) becomes_ready(parent);
    }
  }
  return chosen;
}

std::vector<std::optional<ProblemNodeId>> acyclic_choices(
    const ExtractionProblem& problem, std::span<const std::optional<ProblemNodeId>> preferred,
    std::span<const double> fallback_score) {
  constexpr double kFirst = -std::numeric_limits<double>::infinity();
  return best_first_choices(
      problem,
      [&](ProblemNodeId n) {
        const auto& pref = preferred[problem.node(n).eclass.value];
        return pref && *pref == n ? kFirst : fallback_score[n.value];
      },
      nullptr);
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
        EQSAT_ASSERT(state[child.value] != 1)
            << "extraction: chosen nodes form a cycle through class " << child.value;
        if (state[child.value] == 0) {
          EQSAT_ASSERT(choices[child.value].has_value())
              << "extraction: class " << child.value << " is used but has no choice";
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

std::vector<std::optional<ProblemNodeId>> cheapest_tree_choices(const ExtractionProblem& problem) {
  std::vector<double> tree(problem.num_classes(), 0.0);
  const auto score = [&](ProblemNodeId n) {
    const ProblemNode& node = problem.node(n);
    double s = node.cost;
    for (ProblemClassId c : node.children) s += tree[c.value];
    return s;
  };
  return best_first_choices(problem, score,
                            [&](ProblemClassId c, ProblemNodeId n) { tree[c.value] = score(n); });
}

}  // namespace eqsat::egraph
