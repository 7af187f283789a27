// The result every extractor returns, and the two steps they share: making
// per-class preferences acyclic, and measuring the DAG they choose.
#pragma once

#include "egraph/extract/problem.hpp"

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

namespace eqsat::egraph {

// Thrown when a root class has no acyclic term (every node of it needs,
// directly or below, a class that has none). An ordinary user-facing error.
class ExtractionError : public std::runtime_error {
 public:
  explicit ExtractionError(ProblemClassId root);
  ProblemClassId root() const { return root_; }

 private:
  ProblemClassId root_;
};

// An extracted term DAG. Invariants: `choices` has one entry per class of the
// problem and holds a node exactly for the classes reachable from the roots
// through the chosen nodes; that chosen graph is acyclic and covers every
// root; `order` lists those classes, children before parents.
struct Extraction {
  std::vector<std::optional<ProblemNodeId>> choices;
  std::vector<ProblemClassId> order;
  double dag_cost = 0.0;   // each chosen node counted once
  double tree_cost = 0.0;  // the roots' terms as trees (shared nodes per use; may be inf)
  double seconds = 0.0;    // wall time of the extractor
  bool optimal = false;    // proven minimal in dag_cost
};

// Which nodes an extraction may choose, by node: not subsumed, and not
// forbidden unless the class needs it. Classes are resolved in rounds: every
// class that a non-forbidden node can resolve (all its child classes
// resolved) is, and only when none is left does the ready forbidden node of
// lowest id resolve its class; a forbidden node is usable exactly in the
// classes resolved that way. So a class keeps its forbidden nodes only when
// no acyclic term avoids them (or avoids them only through another forbidden
// node taken before), and the classes with an acyclic term are the same as
// with every node usable. O(E log N).
std::vector<bool> usable_nodes(const ExtractionProblem& problem);

// Chooses nodes best-first (Knuth's generalization of Dijkstra's algorithm):
// a node becomes ready once all its child classes are resolved, and `score`
// is then asked for it once; the ready node with the lowest score (ties by
// id) resolves its class, if still open, and `on_resolve` (may be null)
// runs. The choices are acyclic and a class gets one exactly when it has an
// acyclic term. For scores that never fall below a child's (e.g. tree cost
// with costs >= 0) each class gets its minimum. Only `usable_nodes` are
// chosen. O(E log N) plus the scoring.
std::vector<std::optional<ProblemNodeId>> best_first_choices(
    const ExtractionProblem& problem, const std::function<double(ProblemNodeId)>& score,
    const std::function<void(ProblemClassId, ProblemNodeId)>& on_resolve);

// Completes per-class preferences to acyclic choices. A class is resolved
// by its preferred node once all that node's children are resolved; when no
// preferred node can be resolved, the ready node with the lowest
// `fallback_score` (indexed by node; ties by id) resolves its class. The
// result has a node for exactly the classes that have an acyclic term; if
// the preferences reachable from a class are acyclic, that class keeps them.
// Only `usable_nodes` are chosen (a preferred node that is not is ignored).
std::vector<std::optional<ProblemNodeId>> acyclic_choices(
    const ExtractionProblem& problem, std::span<const std::optional<ProblemNodeId>> preferred,
    std::span<const double> fallback_score);

// A node for every class that has an acyclic term: the one of cheapest
// tree cost (as bottom-up extraction chooses). The starting point for
// classes an extraction does not reach when a pass changes its choices.
std::vector<std::optional<ProblemNodeId>> cheapest_tree_choices(const ExtractionProblem& problem);

// Builds the extraction the choices give from the roots. Throws
// ExtractionError if a root has no choice; InternalError if the chosen
// graph has a cycle or reaches a class without a choice (an extractor bug).
Extraction make_extraction(const ExtractionProblem& problem,
                           std::span<const std::optional<ProblemNodeId>> choices, double seconds,
                           bool optimal);

}  // namespace eqsat::egraph
