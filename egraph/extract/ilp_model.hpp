// The ILP extractor's integer program: the problem pruned to the nodes worth
// a variable, the program over them in CBC's column-major form, and a
// heuristic extraction as a starting solution of that program.
#pragma once

#include "egraph/extract/extraction.hpp"
#include "egraph/extract/ilp.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace eqsat::egraph::ilp {

// The problem after pruning: for each class, the nodes that may be chosen,
// and which classes are reachable from the roots through them.
struct Pruned {
  std::vector<std::vector<ProblemNodeId>> nodes;        // by class
  std::vector<std::vector<ProblemClassId>> children;    // by node: distinct child classes, sorted
  std::vector<std::optional<ProblemNodeId>> dominator;  // by node, for pruned dominated nodes
  std::vector<ProblemClassId> active;                   // reachable classes, in discovery order
  std::vector<bool> is_active;                          // by class
};

// Keeps the usable nodes whose child classes all have an acyclic term (and
// are not their own class), drops the ones a kept node of the same class
// dominates (no higher cost, a subset of the child classes; skipped with
// negative costs), and marks the classes reachable from the roots. Throws
// ExtractionError if a root has no acyclic term.
Pruned prune(const ExtractionProblem& problem);

// An integer program: columns (variables) with bounds, objective and
// entries (row, coefficient), rows with bounds.
struct Program {
  std::vector<std::vector<std::pair<int, double>>> columns;  // (row, coefficient)
  std::vector<double> col_lower, col_upper, objective, row_lower, row_upper;
  std::vector<bool> integer;
  std::vector<int> node_column;           // by node, -1 if not a variable
  std::vector<std::int32_t> column_node;  // by column, -1 if not a node's
  std::size_t num_node_columns = 0;
  std::vector<int> class_column;  // by class: activity, -1 if inactive

  int add_column(double lower, double upper, double cost, bool is_integer);
  int add_row(double lower, double upper);
  void set(int row, int column, double value) { columns[column].emplace_back(row, value); }
};

// The program over the pruned problem: a binary per kept node, an activity
// per active class (roots fixed at 1), an order variable per class inside a
// cycle of the class graph, and the rows described at `extract_ilp`. Fills
// `stats.classes`, `nodes` and `cyclic_classes`.
Program build_program(const ExtractionProblem& problem, const Pruned& pruned, IlpStats& stats);

// The columns at 1 in the solution that `warm` gives: its choices moved onto
// kept nodes (a pruned dominated node is replaced by the node that
// dominates it: fewer children, no higher cost) and their classes' activity.
std::vector<int> warm_start_columns(const Extraction& warm, const Pruned& pruned,
                                    const Program& program);

}  // namespace eqsat::egraph::ilp
