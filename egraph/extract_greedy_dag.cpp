#include "egraph/extract_greedy_dag.hpp"

#include "egraph/class_parents.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <memory>
#include <utility>

namespace eqsat::egraph {

namespace {

// The classes a term DAG uses, each with the cost of the node it uses there,
// sorted by class; `total` is the sum of those costs.
struct CostSet {
  std::vector<std::pair<ProblemClassId, double>> entries;
  double total = 0.0;
};

bool contains(const CostSet& set, ProblemClassId eclass) {
  auto it = std::lower_bound(set.entries.begin(), set.entries.end(), eclass,
                             [](const auto& entry, ProblemClassId c) { return entry.first < c; });
  return it != set.entries.end() && it->first == eclass;
}

// Union by class; where both have a class, `a`'s entry is kept.
std::vector<std::pair<ProblemClassId, double>> merge(
    const std::vector<std::pair<ProblemClassId, double>>& a,
    const std::vector<std::pair<ProblemClassId, double>>& b) {
  std::vector<std::pair<ProblemClassId, double>> out;
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

// The cost set of `node` from its children's current sets, or null if one of
// them contains the node's own class (choosing it would close a cycle).
std::shared_ptr<const CostSet> node_cost_set(
    const ProblemNode& node, const std::vector<std::shared_ptr<const CostSet>>& sets) {
  std::vector<std::pair<ProblemClassId, double>> entries{{node.eclass, node.cost}};
  ProblemClassId previous{std::numeric_limits<std::uint32_t>::max()};
  for (ProblemClassId child : node.children) {
    if (child == previous) continue;
    previous = child;
    const CostSet& set = *sets[child.value];
    if (contains(set, node.eclass)) return nullptr;
    entries = merge(entries, set.entries);
  }
  auto result = std::make_shared<CostSet>();
  result->entries = std::move(entries);
  for (const auto& entry : result->entries) result->total += entry.second;
  return result;
}

std::vector<std::optional<ProblemNodeId>> cost_set_choices(const ExtractionProblem& problem) {
  const ClassParents parents(problem);
  std::vector<std::shared_ptr<const CostSet>> sets(problem.num_classes());
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
    const auto& current = sets[node.eclass.value];
    bool ready = true;
    for (ProblemClassId child : node.children) ready = ready && sets[child.value] != nullptr;
    if (!ready) continue;
    auto set = node_cost_set(node, sets);
    if (!set || (current && !(set->total < current->total))) continue;
    sets[node.eclass.value] = std::move(set);
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

Extraction extract_greedy_dag(const ExtractionProblem& problem) {
  const auto start = std::chrono::steady_clock::now();
  const auto preferred = cost_set_choices(problem);
  std::vector<double> score(problem.num_nodes());
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n)
    score[n] = problem.node(ProblemNodeId{n}).cost;
  const auto choices = acyclic_choices(problem, preferred, score);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return make_extraction(problem, choices, seconds, false);
}

}  // namespace eqsat::egraph
