#include "egraph/extract/ilp.hpp"

#include "egraph/extract/bottom_up.hpp"
#include "egraph/extract/child_with_deadline.hpp"
#include "egraph/extract/greedy_dag.hpp"

#include <coin/Cbc_C_Interface.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include <cstring>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

namespace eqsat::egraph {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A node is compared with at most this many kept nodes of its class when
// looking for one that dominates it (bounds the quadratic check).
constexpr std::size_t kDominanceWindow = 256;

// Above this many node variables, CBC's preprocessing is switched off.
constexpr std::size_t kPreprocessMaxNodeColumns = 6000;

// The problem after pruning: for each class, the nodes that may be chosen,
// and which classes are reachable from the roots through them.
struct Pruned {
  std::vector<std::vector<ProblemNodeId>> nodes;        // by class
  std::vector<std::vector<ProblemClassId>> children;    // by node: distinct child classes, sorted
  std::vector<std::optional<ProblemNodeId>> dominator;  // by node, for pruned dominated nodes
  std::vector<ProblemClassId> active;                   // reachable classes, in discovery order
  std::vector<bool> is_active;                          // by class
};

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
    if (!feasible[c]) continue;
    const ProblemClassId eclass{static_cast<std::uint32_t>(c)};
    std::vector<ProblemNodeId> candidates;
    for (ProblemNodeId n : problem.nodes_of(eclass)) {
      const ProblemNode& node = problem.node(n);
      if (!usable[n.value]) continue;
      bool usable = true;
      for (ProblemClassId child : node.children) {
        usable = usable && feasible[child.value] && child != eclass;
      }
      if (!usable) continue;
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
    auto& kept = pruned.nodes[c];
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

  for (ProblemClassId root : problem.roots()) {
    if (!feasible[root.value]) {
      throw ExtractionError(root);
    }
    if (!pruned.is_active[root.value]) {
      pruned.is_active[root.value] = true;
      pruned.active.push_back(root);
    }
  }
  for (std::size_t i = 0; i < pruned.active.size(); ++i) {
    for (ProblemNodeId n : pruned.nodes[pruned.active[i].value]) {
      for (ProblemClassId child : pruned.children[n.value]) {
        if (!pruned.is_active[child.value]) {
          pruned.is_active[child.value] = true;
          pruned.active.push_back(child);
        }
      }
    }
  }
  return pruned;
}

// Strongly connected components of the active class graph (an edge from a
// class to each child class of its kept nodes). Returns a component number
// per class (-1 for inactive ones) and each component's size.
std::pair<std::vector<int>, std::vector<int>> class_components(const ExtractionProblem& problem,
                                                               const Pruned& pruned) {
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
  std::vector<int> component(num_classes, -1), sizes, renumbered(num_classes, -1);
  for (ProblemClassId c : pruned.active) {
    int& id = renumbered[static_cast<std::size_t>(all[c.value])];
    if (id < 0) {
      id = static_cast<int>(sizes.size());
      sizes.push_back(0);
    }
    component[c.value] = id;
    ++sizes[static_cast<std::size_t>(id)];
  }
  return {std::move(component), std::move(sizes)};
}

// Objective coefficients are kept at most this large: CBC takes values near
// 1e20 for infinite and its tolerances are absolute.
constexpr double kMaxObjective = 1e9;

// The integer program in CBC's column-major form.
struct Program {
  std::vector<std::vector<std::pair<int, double>>> columns;  // (row, coefficient)
  std::vector<double> col_lower, col_upper, objective, row_lower, row_upper;
  std::vector<bool> integer;
  std::vector<int> node_column;           // by node, -1 if not a variable
  std::vector<std::int32_t> column_node;  // by column, -1 if not a node's
  std::size_t num_node_columns = 0;
  std::vector<int> class_column;  // by class: activity, -1 if inactive

  int add_column(double lower, double upper, double cost, bool is_integer) {
    columns.emplace_back();
    column_node.push_back(-1);
    col_lower.push_back(lower);
    col_upper.push_back(upper);
    objective.push_back(cost);
    integer.push_back(is_integer);
    return static_cast<int>(columns.size()) - 1;
  }
  int add_row(double lower, double upper) {
    row_lower.push_back(lower);
    row_upper.push_back(upper);
    return static_cast<int>(row_lower.size()) - 1;
  }
  void set(int row, int column, double value) { columns[column].emplace_back(row, value); }
};

Program build_program(const ExtractionProblem& problem, const Pruned& pruned, IlpStats& stats) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Program program;
  program.node_column.assign(problem.num_nodes(), -1);
  program.class_column.assign(problem.num_classes(), -1);
  const auto [component, sizes] = class_components(problem, pruned);
  std::vector<bool> is_root(problem.num_classes(), false);
  for (ProblemClassId root : problem.roots()) is_root[root.value] = true;

  // Large costs are scaled down by a power of two (exactly, but for costs
  // so small next to the largest that they underflow).
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
  stats.classes = pruned.active.size();
  std::vector<int> order_column(problem.num_classes(), -1);
  for (ProblemClassId c : pruned.active) {
    const int size = sizes[component[c.value]];
    if (size > 1) {
      order_column[c.value] = program.add_column(0.0, size - 1.0, 0.0, false);
      ++stats.cyclic_classes;
    }
  }

  std::vector<std::vector<ProblemNodeId>> users(problem.num_classes());  // scratch, by child class
  std::vector<ProblemClassId> touched;
  // With negative costs, activity must also imply need, or the solver would
  // activate classes for their rewards: by class, every kept node using it.
  const bool support = problem.has_negative_costs();
  std::vector<std::vector<ProblemNodeId>> supporters(support ? problem.num_classes() : 0);
  for (ProblemClassId c : pruned.active) {
    // An active class picks exactly one node.
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
      // Picking a node that uses d activates d.
      const int uses = program.add_row(-kInf, 0.0);
      program.set(uses, program.class_column[d.value], -1.0);
      for (ProblemNodeId n : users[d.value]) program.set(uses, program.node_column[n.value], 1.0);
      if (support) {
        supporters[d.value].insert(supporters[d.value].end(), users[d.value].begin(),
                                   users[d.value].end());
      }
      // Inside a cycle: t_d <= t_c - 1 when such a node is picked.
      if (component[d.value] == component[c.value] && order_column[c.value] >= 0) {
        const double big_m = sizes[component[c.value]];
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
  // A non-root class is active only if a picked node uses it. Following
  // those uses upwards climbs the order variables inside a component and
  // the component DAG outside, so it ends at a root: active = needed.
  for (ProblemClassId d : support ? pruned.active : std::vector<ProblemClassId>{}) {
    if (is_root[d.value]) continue;
    const int needed = program.add_row(-kInf, 0.0);
    program.set(needed, program.class_column[d.value], 1.0);
    for (ProblemNodeId n : supporters[d.value]) {
      program.set(needed, program.node_column[n.value], -1.0);
    }
  }
  return program;
}

// The warm start's choices moved onto kept nodes: a pruned dominated node is
// replaced by the node that dominates it (fewer children, no higher cost).
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

struct CbcDeleter {
  void operator()(Cbc_Model* model) const { Cbc_deleteModel(model); }
};

// CBC's answer: the node columns at 1 in its incumbent.
struct CbcResult {
  bool found = false;   // an incumbent exists
  bool proven = false;  // and it is proven optimal
  std::vector<std::int32_t> node_columns;
};

// Runs CBC in this process with its own (soft) time limit.
CbcResult run_cbc(const Program& program, const std::vector<int>& start, double seconds) {
  std::vector<CoinBigIndex> column_start{0};
  std::vector<int> rows;
  std::vector<double> values;
  for (const auto& column : program.columns) {
    for (const auto& [row, value] : column) {
      rows.push_back(row);
      values.push_back(value);
    }
    column_start.push_back(static_cast<CoinBigIndex>(rows.size()));
  }
  std::unique_ptr<Cbc_Model, CbcDeleter> model(Cbc_newModel());
  Cbc_Model* m = model.get();
  Cbc_loadProblem(m, static_cast<int>(program.columns.size()),
                  static_cast<int>(program.row_lower.size()), column_start.data(), rows.data(),
                  values.data(), program.col_lower.data(), program.col_upper.data(),
                  program.objective.data(), program.row_lower.data(), program.row_upper.data());
  for (std::size_t j = 0; j < program.integer.size(); ++j) {
    if (program.integer[j]) Cbc_setInteger(m, static_cast<int>(j));
  }
  Cbc_setObjSense(m, 1.0);
  Cbc_setLogLevel(m, 0);
  Cbc_setParameter(m, "timeMode", "elapsed");
  Cbc_setMaximumSeconds(m, seconds);
  Cbc_setAllowableFractionGap(m, 0.0);
  // CBC's preprocessing pays off on small programs but costs seconds on
  // large ones; measured on extraction-gym with a 10 s limit (babble proves
  // more instances with it, flexc and herbie many more without).
  if (program.num_node_columns > kPreprocessMaxNodeColumns) {
    Cbc_setParameter(m, "preprocess", "off");
  }
  if (!start.empty()) {
    const std::vector<double> ones(start.size(), 1.0);
    Cbc_setMIPStartI(m, static_cast<int>(start.size()), start.data(), ones.data());
  }
  Cbc_solve(m);
  CbcResult result;
  const double* solution = Cbc_bestSolution(m);
  if (solution == nullptr) return result;
  result.found = true;
  result.proven = Cbc_isProvenOptimal(m) != 0;
  for (std::size_t j = 0; j < program.column_node.size(); ++j) {
    if (program.column_node[j] >= 0 && solution[j] > 0.5) {
      result.node_columns.push_back(static_cast<std::int32_t>(j));
    }
  }
  return result;
}

// Runs CBC in a child process (child_with_deadline.hpp) so the deadline
// holds: CBC gets 80% of `seconds` (it overshoots its limit by up to a
// second on big programs), the child is killed at `seconds`.
CbcResult run_cbc_with_deadline(const Program& program, const std::vector<int>& start,
                                double seconds) {
  bool ran_here = false;
  CbcResult here;
  const auto bytes = run_in_child(
      [&] {
        const CbcResult result = run_cbc(program, start, 0.8 * seconds);
        here = result;
        const std::int32_t header[3] = {result.found, result.proven,
                                        static_cast<std::int32_t>(result.node_columns.size())};
        std::vector<char> out(sizeof header + result.node_columns.size() * sizeof(std::int32_t));
        std::memcpy(out.data(), header, sizeof header);
        std::memcpy(out.data() + sizeof header, result.node_columns.data(),
                    result.node_columns.size() * sizeof(std::int32_t));
        return out;
      },
      seconds, &ran_here);
  if (ran_here) return here;
  CbcResult result;
  std::int32_t header[3];
  if (!bytes || bytes->size() < sizeof header) return result;
  std::memcpy(header, bytes->data(), sizeof header);
  const std::size_t count = static_cast<std::size_t>(std::max(header[2], 0));
  if (bytes->size() != sizeof header + count * sizeof(std::int32_t)) return result;
  result.found = header[0] != 0;
  result.proven = header[1] != 0;
  result.node_columns.resize(count);
  std::memcpy(result.node_columns.data(), bytes->data() + sizeof header,
              count * sizeof(std::int32_t));
  return result;
}

// The incumbent as per-class choices.
std::vector<std::optional<ProblemNodeId>> choices_of(const ExtractionProblem& problem,
                                                     const Program& program,
                                                     const CbcResult& result) {
  std::vector<std::optional<ProblemNodeId>> choices(problem.num_classes());
  for (std::int32_t column : result.node_columns) {
    if (column < 0 || static_cast<std::size_t>(column) >= program.column_node.size()) continue;
    const std::int32_t n = program.column_node[column];
    if (n >= 0) {
      const ProblemNodeId node{static_cast<std::uint32_t>(n)};
      choices[problem.node(node).eclass.value] = node;
    }
  }
  return choices;
}

}  // namespace

Extraction extract_ilp(const ExtractionProblem& problem, const IlpOptions& options,
                       IlpStats* stats_out) {
  const auto start = Clock::now();
  IlpStats stats;
  Extraction best = extract_greedy_dag(problem);
  Extraction tree = extract_bottom_up(problem);
  if (tree.dag_cost < best.dag_cost) best = std::move(tree);
  best.optimal = false;
  // Reading CBC's answer back costs about one of these passes: keep that
  // much of the budget for it.
  const double reserve = seconds_since(start);

  const Pruned pruned = prune(problem);
  std::vector<double> scores(problem.num_nodes());
  for (std::uint32_t n = 0; n < problem.num_nodes(); ++n)
    scores[n] = problem.node(ProblemNodeId{n}).cost;

  const bool forced =
      std::all_of(pruned.active.begin(), pruned.active.end(),
                  [&](ProblemClassId c) { return pruned.nodes[c.value].size() == 1; });
  if (forced) {
    std::vector<std::optional<ProblemNodeId>> only(problem.num_classes());
    for (ProblemClassId c : pruned.active) only[c.value] = pruned.nodes[c.value].front();
    const auto choices = acyclic_choices(problem, only, scores);
    best = make_extraction(problem, choices, 0.0, true);
  } else {
    const Program program = build_program(problem, pruned, stats);
    const double remaining = options.time_limit_seconds - seconds_since(start) - reserve;
    stats.time_limit_reached = true;  // unless CBC proves its answer
    if (remaining > 0.0) {
      stats.solver_ran = true;
      const CbcResult result =
          run_cbc_with_deadline(program, warm_start_columns(best, pruned, program), remaining);
      const bool proven = result.proven;
      stats.time_limit_reached = !proven;
      const auto solved = choices_of(problem, program, result);
      if (result.found) {
        // CBC's solution is acyclic up to its tolerances; acyclic_choices
        // keeps it unchanged when it is, and repairs it otherwise.
        const auto choices = acyclic_choices(problem, solved, scores);
        Extraction candidate = make_extraction(problem, choices, 0.0, false);
        const bool unchanged = std::all_of(
            candidate.order.begin(), candidate.order.end(),
            [&](ProblemClassId c) { return candidate.choices[c.value] == solved[c.value]; });
        if (candidate.dag_cost <= best.dag_cost) {
          candidate.optimal = proven && unchanged;
          best = std::move(candidate);
        } else if (proven) {
          // CBC proved its own (worse) solution optimal: only tolerances
          // can make that happen, so no claim is made.
          best.optimal = false;
        }
      }
    }
  }
  if (stats.classes == 0) stats.classes = pruned.active.size();
  best.seconds = seconds_since(start);
  if (stats_out != nullptr) *stats_out = stats;
  return best;
}

}  // namespace eqsat::egraph
