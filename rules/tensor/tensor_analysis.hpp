// The tensor analysis: what the optimizer knows about each e-class of the
// tensor e-graph — its type (dtype and static shape), a representative
// term, its constant value or "every element equals c", the nominals free
// in it, and the sign facts the rule predicates read (finite, nonneg).
//
// Typing e-nodes. The type rules of ops/ take operand *terms*
// (`std::span<const TermRef>`): besides types they read constant operands
// (arange's length, a scan's step count) and body terms (`fn` parameter
// types). So each e-class keeps a representative term: a real hash-consed
// Term of the class's value and type, built from its children's
// representatives. The type of a new e-node is what `Term::make` gives its
// op over those representatives, with the same checks and attribute
// canonicalization as when a graph is parsed; one code path types graphs
// and e-graphs. On a merge the representative is the one with the most
// precise type, then by (constant, leaf, other; then creation order): a
// class that gains a constant exposes it to the type rules, and a type
// that becomes more precise (a step count or length folded to a constant)
// refines the class's type and its parents'.
#pragma once

#include "rules/tensor/dim_symbols.hpp"
#include "rules/tensor/payload_table.hpp"

#include "egraph/analysis_of.hpp"
#include "ops/term.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace eqsat::rules {

// Constant values of at most this many elements are known to the analysis
// (and a class of such a non-uniform value gets a `const` e-node).
inline constexpr std::int64_t kMaxFoldedElements = 1024;

struct TensorData {
  ops::TermRef rep = nullptr;               // representative term; its type is the class's
  std::optional<ops::Array> value;          // the whole value, when known and small
  std::optional<double> uniform;            // every element equals this, when known
  std::vector<std::int64_t> free_nominals;  // sorted slots one form of the value reads
  bool finite = false;                      // no element is ±∞ or NaN
  bool nonneg = false;                      // no element is < 0 (NaN allowed)
  // Computing the value may fail when the graph runs (ops/run_time_failure.hpp,
  // or an operand's may). Such a class gets no value nor uniform fact: a
  // folded constant would turn the failure into a number. One form that
  // cannot fail makes the class so: rewrites never drop a check
  // (drops_check in tensor_egraph.hpp).
  bool may_fail = true;
  // Per axis of a tensor: which unknown lengths are equal (dim_symbols.hpp).
  std::vector<DimSymbol> dims;

  const ops::Type& type() const { return rep->type(); }
  bool is_tensor() const { return !rep->is_tuple(); }
  const ops::TensorType& tensor_type() const { return rep->tensor_type(); }
};

// Axis `i` of `a` and axis `j` of `b` provably have the same length at run
// time: equal static lengths, or one dim symbol.
bool same_length(const TensorData& a, std::size_t i, const TensorData& b, std::size_t j);

// Broadcasting `a` against `b` provably gives `b`'s shape at run time: each
// of a's dims (aligned from the right) is 1 or provably b's.
bool broadcasts_to(const TensorData& a, const TensorData& b);

// The justification of the merges `modify` makes (explanations).
egraph::Symbol constant_fold_reason();

// d's bit in a set of dtypes held as a mask (TensorAnalysis::dtypes_made).
inline std::uint32_t dtype_bit(ops::DType d) {
  return std::uint32_t{1} << static_cast<unsigned>(d);
}

// The analysis of a TensorEGraph; it owns the payload table that maps
// e-node payloads to attributes.
class TensorAnalysis : public egraph::AnalysisOf<TensorAnalysis, TensorData> {
 public:
  PayloadTable& payloads() { return payloads_; }
  const PayloadTable& payloads() const { return payloads_; }

  TensorData make(const egraph::EGraph& g, const egraph::ENodeRef& n);
  egraph::DidMerge merge(TensorData& a, TensorData b);
  // Adds a `const` e-node to a class whose small value became known; a
  // uniform class of static rank >= 1 gets `(broadcast_to SCALAR :shape S)`
  // instead and its dense `const` e-nodes are hidden.
  void modify(egraph::EGraph& g, egraph::EClassId c);

  // The dtypes of the tensor classes made so far (dtype_bit). A
  // class's dtype is its first e-node's (merges only refine shapes), so no
  // class has a dtype outside this set: a rule whose condition needs one
  // (`(integer ?x)` in an all-float graph) can be skipped unsearched.
  std::uint32_t dtypes_made() const { return dtypes_made_; }

 private:
  PayloadTable payloads_;
  std::uint32_t dtypes_made_ = 0;
};

}  // namespace eqsat::rules
