#include "egraph/extract/ilp_model.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace eqsat::egraph::ilp {

namespace {

// A node is compared with at most this many kept nodes of its class when
// looking for one that dominates it (bounds the quadratic check).
constexpr std::size_t kDominanceWindow = 256;

// Objective coefficients are kept at most this large: CBC takes values near
// 1e20 for infinite and its tolerances are absolute.
constexpr double kMaxObjective = 1e9;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The kept nodes of class `c` (sorted by id), given which classes have an
// acyclic term: fills their distinct sorted children and, for a node left
// out because a kept one dominates it, its dominator.
void keep_nodes(const ExtractionProblem& problem, const std::vector<bool>& usable,
                const std::vector<std::optional<ProblemNodeId>>& feasible, ProblemClassId eclass,
                Pruned& pruned) {
  std::vector<ProblemNodeId> candidates;
  for (ProblemNodeId n : problem.nodes_of(eclass)) {
    const ProblemNode& node = problem.node(n);
    if (!usable[n.value]) continue;
    bool usable_children = true;
    for (ProblemClassId child : node.children) {
      usable_children = usable_children && feasible[child.value] && child != eclass;
    }
    if (!usable_children) continue;
    auto& children = pruned.children[n.value];
    children = node.children;
    std::sort(children.begin(), children.end());
    children.erase(std::unique(children.begin(), children.end()), children.end());
    candidates.push_back(n);
  }
  // Cheaper (then fewer children, then lower id) first: a node can only be
  // dominated by one before it.
  std::stable_sort(candidates.begin(), candidates.end(), [&](ProblemNodeId a, ProblemNodeId b) {
    const double ca = problem.node(a).cost, cb = problem.node(b).cost;
    if (ca != cb) return ca < cb;
    return pruned.children[a.value].size() < pruned.children[b.value].size();
  });
  auto& kept = pruned.nodes[eclass.value];
  for (ProblemNodeId n : candidates) {
    const auto& mine = pruned.children[n.value];
    // With negative costs a node's extra children may pay for themselves.
    const std::size_t window =
        problem.has_negative_costs() ? 0 : std::min(kept.size(), kDominanceWindow);
    for (std::size_t k = 0; k < window && !pruned.dominator[n.value]; ++k) {
      const auto& theirs = pruned.children[kept[k].value];
      if (std::includes(mine.begin(), mine.end(), theirs.begin(), theirs.end())) {
        pruned.dominator[n.value] = kept[k];
      }
    }
    if (!pruned.dominator[n.value]) kept.push_back(n);
  }
  std::sort(kept.begin(), kept.end());
}

// The classes reachable from the roots through kept nodes, breadth-first
// (the discovery order numbers the program's columns).
void mark_active(const ExtractionProblem& problem, Pruned& pruned) {
  const auto activate = [&](ProblemClassId c) {
    if (pruned.is_active[c.value]) return;
    pruned.is_active[c.value] = true;
    pruned.active.push_back(c);
  };
  for (ProblemClassId root : problem.roots()) activate(root);
  for (std::size_t i = 0; i < pruned.active.size(); ++i) {
    for (ProblemNodeId n : pruned.nodes[pruned.active[i].value]) {
      for (ProblemClassId child : pruned.children[n.value]) activate(child);
    }
  }
}

// Strongly connected components of the active class graph (an edge from a
// class to each child class of its kept nodes): a component number per
// class (-1 for inactive ones) and each component's size.
struct Components {
  std::vector<int> of;
  std::vector<int> sizes;
};

Components class_components(const ExtractionProblem& problem, const Pruned& pruned) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const std::size_t num_classes = problem.num_classes();
  Graph graph(num_classes);
  for (ProblemClassId c : pruned.active)
    for (ProblemNodeId n : pruned.nodes[c.value])
      for (ProblemClassId d : pruned.children[n.value]) boost::add_edge(c.value, d.value, graph);
  std::vector<int> all(num_classes);
  boost::strong_components(graph, boost::make_iterator_property_map(
                                      all.begin(), boost::get(boost::vertex_index, graph)));
  // Inactive classes are singleton components of their own: renumber the
  // active ones densely.
  Components components;
  components.of.assign(num_classes, -1);
  std::vector<int> renumbered(num_classes, -1);
  for (ProblemClassId c : pruned.active) {
    int& id = renumbered[static_cast<std::size_t>(all[c.value])];
    if (id < 0) {
      id = static_cast<int>(components.sizes.size());
      components.sizes.push_back(0);
    }
    components.of[c.value] = id;
    ++components.sizes[static_cast<std::size_t>(id)];
  }
  return components;
}

// The activity and node columns, class by class in discovery order. Large
// costs are scaled down by a power of two (exactly, but for costs so small
// next to the largest that they underflow).
void add_choice_columns(const ExtractionProblem& problem, const Pruned& pruned,
                        const std::vector<bool>& is_root, Program& program, IlpStats& stats) {
  double largest = 0.0;
  for (ProblemClassId c : pruned.active) {
    for (ProblemNodeId n : pruned.nodes[c.value])
      largest = std::max(largest, std::abs(problem.node(n).cost));
  }
  const double scale = largest > kMaxObjective
                           ? std::ldexp(1.0, std::ilogb(kMaxObjective) - std::ilogb(largest))
                           : 1.0;
  for (ProblemClassId c : pruned.active) {
    program.class_column[c.value] =
        program.add_column(is_root[c.value] ? 1.0 : 0.0, 1.0, 0.0, false);
    for (ProblemNodeId n : pruned.nodes[c.value]) {
      program.node_column[n.value] =
          program.add_column(0.0, 1.0, scale * problem.node(n).cost, true);
      program.column_node.back() = static_cast<std::int32_t>(n.value);
      ++program.num_node_columns;
      ++stats.nodes;
    }
  }
}

// Class by class: an active class picks exactly one node; picking a node
// activates each child class; inside a cycle, picking a node orders its
// class after the child class (t_d <= t_c - 1, big-M the component's size).
void add_choice_rows(const ExtractionProblem& problem, const Pruned& pruned,
                     const Components& components, const std::vector<int>& order_column,
                     Program& program) {
  std::vector<std::vector<ProblemNodeId>> users(problem.num_classes());  // scratch, by child class
  std::vector<ProblemClassId> touched;
  for (ProblemClassId c : pruned.active) {
    const int pick = program.add_row(0.0, 0.0);
    program.set(pick, program.class_column[c.value], -1.0);
    for (ProblemNodeId n : pruned.nodes[c.value]) {
      program.set(pick, program.node_column[n.value], 1.0);
      for (ProblemClassId d : pruned.children[n.value]) {
        if (users[d.value].empty()) touched.push_back(d);
        users[d.value].push_back(n);
      }
    }
    std::sort(touched.begin(), touched.end());
    for (ProblemClassId d : touched) {
      const int uses = program.add_row(-kInf, 0.0);
      program.set(uses, program.class_column[d.value], -1.0);
      for (ProblemNodeId n : users[d.value]) program.set(uses, program.node_column[n.value], 1.0);
      if (components.of[d.value] == components.of[c.value] && order_column[c.value] >= 0) {
        const double big_m = components.sizes[components.of[c.value]];
        const int order = program.add_row(-kInf, big_m - 1.0);
        program.set(order, order_column[d.value], 1.0);
        program.set(order, order_column[c.value], -1.0);
        for (ProblemNodeId n : users[d.value])
          program.set(order, program.node_column[n.value], big_m);
      }
      users[d.value].clear();
    }
    touched.clear();
  }
}

// With negative costs, activity must also imply need, or the solver would
// activate classes for their rewards: a non-root class is active only if a
// picked node uses it. Following those uses upwards climbs the order
// variables inside a component and the component DAG outside, so it ends at
// a root: active = needed.
void add_need_rows(const ExtractionProblem& problem, const Pruned& pruned,
                   const std::vector<bool>& is_root, Program& program) {
  std::vector<std::vector<ProblemNodeId>> supporters(problem.num_classes());
  for (ProblemClassId c : pruned.active)
    for (ProblemNodeId n : pruned.nodes[c.value])
      for (ProblemClassId d : pruned.children[n.value]) supporters[d.value].push_back(n);
  for (ProblemClassId d : pruned.active) {
    if (is_root[d.value]) continue;
    const int needed = program.add_row(-kInf, 0.0);
    program.set(needed, program.class_column[d.value], 1.0);
    for (ProblemNodeId n : supporters[d.value]) {
      program.set(needed, program.node_column[n.value], -1.0);
    }
  }
}

}  // namespace

Pruned prune(const ExtractionProblem& problem) {
  Pruned pruned;
  const std::size_t num_classes = problem.num_classes();
  pruned.nodes.resize(num_classes);
  pruned.children.resize(problem.num_nodes());
  pruned.dominator.resize(problem.num_nodes());
  pruned.is_active.assign(num_classes, false);

  // Classes with an acyclic term: the ones acyclic_choices can resolve.
  const std::vector<std::optional<ProblemNodeId>> no_preference(num_classes);
  std::vector<double> zero(problem.num_nodes(), 0.0);
  const auto feasible = acyclic_choices(problem, no_preference, zero);
  const std::vector<bool> usable = usable_nodes(problem);
  for (std::size_t c = 0; c < num_classes; ++c) {
    if (feasible[c]) {
      keep_nodes(problem, usable, feasible, ProblemClassId{static_cast<std::uint32_t>(c)}, pruned);
    }
  }
  for (ProblemClassId root : problem.roots()) {
    if (!feasible[root.value]) throw ExtractionError(root);
  }
  mark_active(problem, pruned);
  return pruned;
}

int Program::add_column(double lower, double upper, double cost, bool is_integer) {
  columns.emplace_back();
  column_node.push_back(-1);
  col_lower.push_back(lower);
  col_upper.push_back(upper);
  objective.push_back(cost);
  integer.push_back(is_integer);
  return static_cast<int>(columns.size()) - 1;
}

int Program::add_row(double lower, double upper) {
  row_lower.push_back(lower);
  row_upper.push_back(upper);
  return static_cast<int>(row_lower.size()) - 1;
}

Program build_program(const ExtractionProblem& problem, const Pruned& pruned, IlpStats& stats) {
  Program program;
  program.node_column.assign(problem.num_nodes(), -1);
  program.class_column.assign(problem.num_classes(), -1);
  const Components components = class_components(problem, pruned);
  std::vector<bool> is_root(problem.num_classes(), false);
  for (ProblemClassId root : problem.roots()) is_root[root.value] = true;

  add_choice_columns(problem, pruned, is_root, program, stats);
  stats.classes = pruned.active.size();
  std::vector<int> order_column(problem.num_classes(), -1);
  for (ProblemClassId c : pruned.active) {
    const int size = components.sizes[components.of[c.value]];
    if (size > 1) {
      order_column[c.value] = program.add_column(0.0, size - 1.0, 0.0, false);
      ++stats.cyclic_classes;
    }
  }
  add_choice_rows(problem, pruned, components, order_column, program);
  if (problem.has_negative_costs()) add_need_rows(problem, pruned, is_root, program);
  return program;
}

std::vector<int> warm_start_columns(const Extraction& warm, const Pruned& pruned,
                                    const Program& program) {
  std::vector<int> columns;
  for (ProblemClassId c : warm.order) {
    ProblemNodeId n = *warm.choices[c.value];
    while (pruned.dominator[n.value]) n = *pruned.dominator[n.value];
    if (program.node_column[n.value] >= 0) columns.push_back(program.node_column[n.value]);
    if (program.class_column[c.value] >= 0) columns.push_back(program.class_column[c.value]);
  }
  return columns;
}

}  // namespace eqsat::egraph::ilp
