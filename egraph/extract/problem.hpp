// The input of every extractor: a dense, immutable-after-building copy of an
// e-graph's choice structure (classes, their e-nodes, costs, children as
// classes, roots). An EGraph or an egraph-serialize file converts into it.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

namespace eqsat::egraph {

// Index of a class in an ExtractionProblem, 0..num_classes()-1.
struct ProblemClassId {
  std::uint32_t value = 0;
  friend auto operator<=>(const ProblemClassId&, const ProblemClassId&) = default;
};

// Index of a node in an ExtractionProblem, 0..num_nodes()-1.
struct ProblemNodeId {
  std::uint32_t value = 0;
  friend auto operator<=>(const ProblemNodeId&, const ProblemNodeId&) = default;
};

// One e-node: the class it belongs to, its own cost (finite; negative only in
// problems that opt in, see ExtractionProblem) and its
// children as classes, in argument order (a class may repeat). A subsumed
// node (egglog's `subsume`) is kept for interchange but never extracted. A
// forbidden node (see ExtractionProblem::forbid) is extracted only where
// its class has no acyclic term without one.
struct ProblemNode {
  ProblemClassId eclass;
  double cost = 0.0;
  std::vector<ProblemClassId> children;
  bool subsumed = false;
  bool forbidden = false;
};

// Thrown when a problem is built with an inconsistent or invalid part (a
// non-finite cost, an id out of range).
class ProblemError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A set of e-classes, each holding e-nodes whose children are e-classes, and
// the root classes an extraction must cover. Classes and nodes are numbered
// densely in the order they are added; a class may be empty (it then has no
// term). Example:
//   ExtractionProblem p;
//   auto x = p.add_class(), y = p.add_class();
//   p.add_node(x, 1.0, {});           // x := leaf
//   p.add_node(y, 2.0, {x, x});       // y := f(x, x)
//   p.add_root(y);
class ExtractionProblem {
 public:
  ProblemClassId add_class();
  // Throws ProblemError for a class out of range, a cost that is NaN or
  // infinite, or one that makes the sum of all costs' magnitudes overflow a
  // double (so that every DAG cost is finite). A negative cost (a reward, as in extraction-gym's
  // maxsat suite) is allowed: DAG cost stays well defined and the ILP stays exact, but tree cost is
  // no longer minimized exactly by bottom-up, and pruning by dominance is skipped.
  ProblemNodeId add_node(ProblemClassId eclass, double cost, std::vector<ProblemClassId> children,
                         bool subsumed = false);
  // Adding the same root twice keeps one.
  void add_root(ProblemClassId eclass);
  // Marks a node as a last resort, whatever its cost (e.g. a form that a
  // stabilizing rewrite replaced): every extractor leaves it out of its
  // class whenever that class can be resolved otherwise. Precisely, classes
  // are resolved as in `usable_nodes` (extraction.hpp): a forbidden node is
  // usable only in a class no other node could resolve first.
  void forbid(ProblemNodeId node);

  std::size_t num_classes() const { return class_nodes_.size(); }
  std::size_t num_nodes() const { return nodes_.size(); }
  const ProblemNode& node(ProblemNodeId id) const { return nodes_[id.value]; }
  // The nodes of `eclass`, in the order they were added.
  std::span<const ProblemNodeId> nodes_of(ProblemClassId eclass) const {
    return class_nodes_[eclass.value];
  }
  const std::vector<ProblemClassId>& roots() const { return roots_; }
  bool has_negative_costs() const { return has_negative_costs_; }
  bool has_forbidden() const { return has_forbidden_; }

 private:
  std::vector<ProblemNode> nodes_;
  std::vector<std::vector<ProblemNodeId>> class_nodes_;
  std::vector<ProblemClassId> roots_;
  std::vector<bool> is_root_;  // by class; may be shorter than the class list
  bool has_negative_costs_ = false;
  bool has_forbidden_ = false;
  double magnitude_ = 0.0;  // sum of |cost| over the nodes
};

}  // namespace eqsat::egraph
