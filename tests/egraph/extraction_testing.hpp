// Test helpers for the extractors: random small problems (with cycles and
// classes that have no acyclic term), a brute-force optimum over every
// choice combination, and an independent check of an Extraction's
// invariants.
#pragma once

#include "egraph/extract/extraction.hpp"
#include "egraph/extract/problem.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace eqsat::egraph::testing {

// 2..max_classes classes of 1..3 nodes, each with 0..2 children drawn from
// all classes (self-loops and cycles included), integer costs 0..9 (-5..9
// with `negative_costs`) so sums are exact, an occasional subsumed node,
// 1..2 roots; with `forbidden`, about one node in four is forbidden.
inline ExtractionProblem random_problem(std::uint32_t seed, int max_classes = 6,
                                        bool negative_costs = false, bool forbidden = false) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ExtractionProblem problem;
  const int classes = uniform(2, max_classes);
  for (int c = 0; c < classes; ++c) problem.add_class();
  for (int c = 0; c < classes; ++c) {
    const int nodes = uniform(1, 3);
    for (int k = 0; k < nodes; ++k) {
      std::vector<ProblemClassId> children;
      const int arity = uniform(0, 2);
      for (int i = 0; i < arity; ++i) {
        children.push_back(ProblemClassId{static_cast<std::uint32_t>(uniform(0, classes - 1))});
      }
      const ProblemNodeId n = problem.add_node(ProblemClassId{static_cast<std::uint32_t>(c)},
                                               uniform(negative_costs ? -5 : 0, 9),
                                               std::move(children), uniform(0, 19) == 0);
      if (forbidden && uniform(0, 3) == 0) problem.forbid(n);
    }
  }
  const int roots = uniform(1, 2);
  for (int r = 0; r < roots; ++r) {
    problem.add_root(ProblemClassId{static_cast<std::uint32_t>(uniform(0, classes - 1))});
  }
  return problem;
}

// The best DAG and tree costs over every choice of one usable node per class
// (`usable_nodes`: not subsumed, not a forbidden node its class can do
// without) whose graph from the roots is acyclic; nullopt if there is none.
struct BruteForce {
  double dag_cost = std::numeric_limits<double>::infinity();
  double tree_cost = std::numeric_limits<double>::infinity();
};

inline std::optional<BruteForce> brute_force(const ExtractionProblem& problem) {
  const std::size_t classes = problem.num_classes();
  std::vector<std::vector<ProblemNodeId>> options(classes);
  const std::vector<bool> usable = usable_nodes(problem);
  for (std::uint32_t c = 0; c < classes; ++c) {
    for (ProblemNodeId n : problem.nodes_of(ProblemClassId{c})) {
      if (usable[n.value]) options[c].push_back(n);
    }
  }
  std::optional<BruteForce> best;
  std::vector<std::size_t> pick(classes, 0);
  std::vector<int> state(classes);
  std::vector<double> tree(classes);
  while (true) {
    // Evaluate this combination: depth-first from the roots, cycle = invalid.
    std::fill(state.begin(), state.end(), 0);
    bool valid = true;
    double dag = 0.0;
    std::function<void(ProblemClassId)> visit = [&](ProblemClassId c) {
      if (!valid || state[c.value] == 2) return;
      if (state[c.value] == 1 || options[c.value].empty()) {
        valid = false;
        return;
      }
      state[c.value] = 1;
      const ProblemNode& node = problem.node(options[c.value][pick[c.value]]);
      double total = node.cost;
      for (ProblemClassId child : node.children) {
        visit(child);
        if (!valid) return;
        total += tree[child.value];
      }
      tree[c.value] = total;
      dag += node.cost;
      state[c.value] = 2;
    };
    for (ProblemClassId root : problem.roots()) visit(root);
    if (valid) {
      double tree_total = 0.0;
      for (ProblemClassId root : problem.roots()) tree_total += tree[root.value];
      if (!best) best = BruteForce{};
      best->dag_cost = std::min(best->dag_cost, dag);
      best->tree_cost = std::min(best->tree_cost, tree_total);
    }
    // Next combination (classes without options stay at 0).
    std::size_t c = 0;
    while (c < classes && (options[c].size() <= 1 || pick[c] + 1 == options[c].size())) {
      pick[c] = 0;
      ++c;
    }
    if (c == classes) break;
    ++pick[c];
  }
  return best;
}

// Checks every invariant of an Extraction from scratch: choices exactly on
// the classes reachable from the roots, each a usable node of its class
// (`usable_nodes`), an acyclic graph, and the reported DAG and tree costs.
inline void check_extraction(const ExtractionProblem& problem, const Extraction& extraction) {
  REQUIRE(extraction.choices.size() == problem.num_classes());
  const std::vector<bool> usable = usable_nodes(problem);
  std::vector<int> state(problem.num_classes(), 0);
  std::vector<double> tree(problem.num_classes(), 0.0);
  double dag = 0.0;
  // Post-order with an explicit stack of (class, next child): chains of
  // 30,000 classes overflow the call stack under AddressSanitizer.
  std::vector<std::pair<ProblemClassId, std::size_t>> stack;
  auto enter = [&](ProblemClassId c) {
    REQUIRE(state[c.value] != 1);  // a cycle
    if (state[c.value] == 2) return;
    state[c.value] = 1;
    REQUIRE(extraction.choices[c.value].has_value());
    const ProblemNode& node = problem.node(*extraction.choices[c.value]);
    REQUIRE(node.eclass == c);
    REQUIRE_FALSE(node.subsumed);
    REQUIRE(usable[extraction.choices[c.value]->value]);
    stack.emplace_back(c, 0);
  };
  auto visit = [&](ProblemClassId root) {
    enter(root);
    while (!stack.empty()) {
      const ProblemClassId c = stack.back().first;
      const ProblemNode& node = problem.node(*extraction.choices[c.value]);
      if (stack.back().second < node.children.size()) {
        enter(node.children[stack.back().second++]);
        continue;
      }
      double total = node.cost;
      for (ProblemClassId child : node.children) total += tree[child.value];
      tree[c.value] = total;
      dag += node.cost;
      state[c.value] = 2;
      stack.pop_back();
    }
  };
  double tree_total = 0.0;
  for (ProblemClassId root : problem.roots()) {
    visit(root);
    tree_total += tree[root.value];
  }
  for (std::size_t c = 0; c < problem.num_classes(); ++c) {
    CHECK(extraction.choices[c].has_value() == (state[c] == 2));
  }
  CHECK(extraction.order.size() ==
        static_cast<std::size_t>(std::count(state.begin(), state.end(), 2)));
  CHECK(extraction.dag_cost == Approx(dag));
  CHECK(extraction.tree_cost == Approx(tree_total));
}

// A layered problem with heavy sharing and back edges: hard enough that CBC
// does not finish in a fraction of a second.
inline ExtractionProblem large_problem(std::uint32_t seed, int classes) {
  std::mt19937 rng(seed);
  ExtractionProblem p;
  for (int c = 0; c < classes; ++c) p.add_class();
  for (int c = 0; c < classes; ++c) {
    const ProblemClassId eclass{static_cast<std::uint32_t>(c)};
    if (c < 10) p.add_node(eclass, 1 + rng() % 50, {});
    for (int k = 0; k < 4 && c >= 10; ++k) {
      std::vector<ProblemClassId> children;
      for (int i = 0; i < 2; ++i) {
        // Mostly lower classes, sometimes a higher one: cycles.
        const auto child = rng() % 8 == 0 ? rng() % classes : rng() % c;
        children.push_back(ProblemClassId{static_cast<std::uint32_t>(child)});
      }
      p.add_node(eclass, 1 + rng() % 20, std::move(children));
    }
  }
  for (int r = 0; r < 20; ++r)
    p.add_root(ProblemClassId{static_cast<std::uint32_t>(classes - 1 - r)});
  return p;
}

}  // namespace eqsat::egraph::testing
