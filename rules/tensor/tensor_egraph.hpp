// TensorEGraph: an e-graph of tensor terms with the tensor analysis. Each
// e-node is an op (its symbol), its canonical attributes (interned into the
// payload) and its operand e-classes; bodies (`fn`) are e-nodes whose
// children are their outputs, so a scan's body is rewritten in the same
// saturation as the outside (docs/architecture.md decision 3).
//
//   TensorEGraph g;
//   EClassId y = g.add_term(term);              // one term, one e-node
//   g.type(y);                                  // the class's type
//   auto z = g.add_op(OpKind::Neg, {}, {y});    // type-checked; nullopt if ill-typed
#pragma once

#include "rules/tensor/tensor_analysis.hpp"

#include "egraph/egraph.hpp"
#include "ops/graph.hpp"
#include "ops/term.hpp"
#include "ops/type_error.hpp"

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace eqsat::rules {

// Thrown by TensorEGraph::add_term when a term, typed again over what the
// e-graph knows of its operands (one folded to a constant), is ill-typed:
// `(arange (mul 3 K))` whose length folds to a size past 64 bits. `term()`
// is the term whose e-node was being added, for its source position.
class RefinedTypeError : public ops::TypeError {
 public:
  RefinedTypeError(ops::TermRef term, const ops::TypeError& error)
      : ops::TypeError(error), term_(term) {}
  ops::TermRef term() const { return term_; }

 private:
  ops::TermRef term_;
};

class TensorEGraph {
 public:
  // With explanations on, the e-graph records why classes merge
  // (egraph/explain.hpp) and `add_term` ids name exact terms.
  explicit TensorEGraph(egraph::Explanations explanations = egraph::Explanations::Off);

  egraph::EGraph& egraph() { return g_; }
  const egraph::EGraph& egraph() const { return g_; }
  TensorAnalysis& analysis() { return g_.analysis<TensorAnalysis>(); }
  const TensorAnalysis& analysis() const { return g_.analysis<TensorAnalysis>(); }

  // Adds `term` and everything under it (bodies included): one e-node per
  // distinct term, so equal (e.g. alpha-equivalent) terms share a class.
  // Throws RefinedTypeError.
  egraph::EClassId add_term(ops::TermRef term);
  // The same, but the id `term` was added with: with explanations on, the
  // id of exactly that term (egraph::EGraph::explain's unit).
  egraph::EClassId term_id(ops::TermRef term);

  // Adds the application of `kind` to `children` with `attrs` (canonicalized
  // by the op's type rule). Returns nullopt, with the type error in `error`
  // when given, if the op does not type-check on the children's types.
  std::optional<egraph::EClassId> add_op(ops::OpKind kind, ops::Attrs attrs,
                                         std::span<const egraph::EClassId> children,
                                         std::string* error = nullptr);

  // Marks the e-node (op, payload, children) as unstable: a stabilizing
  // rewrite put a better way to compute its value in its class (docs/architecture.md
  // decision 11). Extraction then avoids it whatever sharing would save.
  // For a commutative op the commuted e-node is marked too.
  void mark_unstable(egraph::Symbol op, egraph::Payload payload,
                     std::span<const egraph::EClassId> children);
  // Whether e-node n is (after merges: equals) a marked one. Call on a
  // clean e-graph.
  bool unstable(egraph::ENodeId n) const;
  // Whether the e-node of an added term is marked (false for a term not in
  // the e-graph).
  bool unstable(ops::TermRef t);
  bool has_unstable() const { return !marks_.empty(); }

  const TensorData& data(egraph::EClassId c) const { return analysis().data(c); }
  const ops::Type& type(egraph::EClassId c) const { return data(c).type(); }
  // The class's tensor type, or null for a tuple or a function.
  const ops::TensorType* tensor_type(egraph::EClassId c) const {
    return data(c).is_tensor() ? &data(c).tensor_type() : nullptr;
  }
  // Whether both classes are tensors of one type.
  bool same_tensor_type(egraph::EClassId a, egraph::EClassId b) const {
    const ops::TensorType *x = tensor_type(a), *y = tensor_type(b);
    return x && y && *x == *y;
  }
  ops::OpKind kind(egraph::ENodeId n) const;
  const ops::Attrs& attrs(egraph::ENodeId n) const;

 private:
  egraph::EGraph g_;
  absl::flat_hash_map<ops::TermRef, egraph::EClassId> loaded_;
  // Marked e-nodes as (op, payload, children) at marking time; looked up
  // canonicalized, through a set rebuilt when the e-graph changed.
  struct Mark {
    egraph::Symbol op;
    egraph::Payload payload;
    std::vector<egraph::EClassId> children;
  };
  std::vector<Mark> marks_;
  bool marked(egraph::Symbol op, egraph::Payload p, std::span<const egraph::EClassId> kids) const;
  mutable std::uint64_t marks_version_ = ~std::uint64_t{0};
  mutable std::set<std::tuple<std::uint32_t, egraph::Payload, std::vector<std::uint32_t>>> marked_;
};

// True when merging class `to` into `from` would drop a run-time check:
// `from`'s value may fail to compute (an index out of range, shapes that
// do not broadcast) and `to`'s cannot. A rewrite refuses such a merge
// (docs/architecture.md decision 13: an output whose written computation
// fails fails optimized too).
inline bool drops_check(const TensorEGraph& g, egraph::EClassId from, egraph::EClassId to) {
  return g.data(from).may_fail && !g.data(to).may_fail;
}

// Adds the terms of `graph`'s outputs, then of its defs, to `g`; returns
// their classes in that order. A RefinedTypeError becomes an
// ops::DiagnosticError at the term's source position (else its file's).
std::vector<egraph::EClassId> add_graph(TensorEGraph& g, const ops::Graph& graph);

}  // namespace eqsat::rules
