// E-class analyses: a value per e-class computed from its e-nodes and kept
// up to date as classes merge (a semilattice join), plus a `modify` hook that
// may act on the e-graph (constant folding adds a literal and unions it).
//
// The contract (as in egg):
//   make(g, n)      the data e-node `n` alone implies; it may read the data
//                   of n's children (`data(child)`), never modify `g`.
//   merge(a, b)     join b into a; returns which side changed: `a_changed`
//                   when a is now different from what it was, `b_changed`
//                   when the result differs from b. The join must be
//                   commutative, associative and idempotent, or saturation
//                   depends on the order of merges.
//   modify(g, c)    called after c's data is created or changed; may add
//                   e-nodes, union classes and prune e-nodes of c. It must
//                   reach a fixpoint: calling it again must change nothing.
// The e-graph keeps data consistent during `rebuild`: when a class's data
// changes, its parents' data is recomputed (make + merge) until fixpoint.
//
// Define an analysis by deriving from `AnalysisOf<Self, Data>`
// (analysis_of.hpp):
//
//   struct ConstFold : AnalysisOf<ConstFold, std::optional<double>> {
//     std::optional<double> make(const EGraph& g, const ENodeRef& n);
//     DidMerge merge(std::optional<double>& a, std::optional<double> b);
//     void modify(EGraph& g, EClassId c);   // optional
//   };
//   EGraph g(std::make_unique<ConstFold>());
//   g.analysis<ConstFold>().data(c);
#pragma once

#include "egraph/enode.hpp"
#include "egraph/id.hpp"

#include <cstddef>

namespace eqsat::egraph {

class EGraph;

// What changed when two data values were joined (see the contract above).
struct DidMerge {
  bool a_changed = false;
  bool b_changed = false;
};

// The interface the e-graph calls; implement it through `AnalysisOf`.
class Analysis {
 public:
  virtual ~Analysis() = default;
  // Called once by the e-graph that owns the analysis.
  void attach(const EGraph* g) { egraph_ = g; }
  // New class `c` whose only e-node is `n`: create its data.
  virtual void on_make(const EGraph& g, EClassId c, const ENodeRef& n) = 0;
  // Join what `n` implies into c's data; true when c's data changed.
  virtual bool on_join_node(const EGraph& g, EClassId c, const ENodeRef& n) = 0;
  // Class `from` was merged into root `into`: join the data.
  virtual DidMerge on_merge(EClassId into, EClassId from) = 0;
  virtual void on_modify(EGraph& g, EClassId c) = 0;
  // Whether c's data already includes what `n` implies (for check_invariants).
  virtual bool agrees(const EGraph& g, EClassId c, const ENodeRef& n) const = 0;
  virtual std::size_t bytes() const { return 0; }

 protected:
  const EGraph* egraph_ = nullptr;
};

}  // namespace eqsat::egraph
