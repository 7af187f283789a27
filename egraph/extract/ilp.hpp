// Exact DAG extraction as an integer program solved by CBC under a time
// limit, warm-started with the better of the greedy extractions.
#pragma once

#include "egraph/extract/extraction.hpp"

namespace eqsat::egraph {

struct IlpOptions {
  // Wall-clock budget of the whole call, pruning and warm start included
  // (default 10 s). When it runs out, the best extraction found so far is
  // returned with `optimal = false`.
  double time_limit_seconds = 10.0;
};

// What the solver was given after pruning, for reports and tests.
struct IlpStats {
  std::size_t classes = 0;         // reachable classes with an acyclic term
  std::size_t nodes = 0;           // their nodes left after pruning
  std::size_t cyclic_classes = 0;  // classes in a cycle of the class graph (get order variables)
  bool solver_ran = false;         // false when pruning left one node per class, or no time
  // The limit stopped the search before a proof: CBC hit it or was killed at
  // it, or no time was left to start it. The result is then the best found.
  bool time_limit_reached = false;
};

// Minimizes DAG cost exactly. Before solving: removes unusable nodes (subsumed, or
// forbidden where `usable_nodes` drops them), nodes
// with a child class that has no acyclic term (or their own class as a
// child), nodes dominated by a node of the same class that costs no more and
// uses a subset of its child classes, and classes unreachable from the
// roots (dominance is skipped when some cost is negative). The program has a
// binary per node, an activity per class (roots active; an active class
// picks one node; a picked node activates its children; with negative costs
// also: a non-root class is active only if a picked node uses it) and, only for classes inside a
// cycle of the class graph, an order variable with big-M constraints: a picked node's class is
// ordered after each child class in the same strongly connected component. The answer is the better
// of CBC's incumbent and the warm start; `optimal` is CBC's proof. CBC runs in a forked child
// process, killed at the deadline, because CBC does not check its limit everywhere (its root LP can
// take minutes); its incumbent is kept when it returns in time. (If fork fails, CBC runs in this
// process with only its own limit.) Throws ExtractionError if a root has no acyclic term.
Extraction extract_ilp(const ExtractionProblem& problem, const IlpOptions& options = {},
                       IlpStats* stats = nullptr);

}  // namespace eqsat::egraph
