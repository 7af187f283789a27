// TensorEGraph: an e-graph of tensor terms with the tensor analysis. Each
// e-node is an op (its symbol), its canonical attributes (interned into the
// payload) and its operand e-classes; bodies (`fn`) are e-nodes whose
// children are their outputs, so a scan's body is rewritten in the same
// saturation as the outside (DESIGN.md decision 3).
//
//   TensorEGraph g;
//   EClassId y = g.add_term(term);              // one term, one e-node
//   g.type(y);                                  // the class's type
//   auto z = g.add_op(OpKind::Neg, {}, {y});    // type-checked; nullopt if ill-typed
#pragma once

#include "tensor_analysis.hpp"

#include "egraph/egraph.hpp"
#include "ops/term.hpp"

#include <optional>
#include <span>
#include <string>
#include <unordered_map>

namespace eqsat::rules {

class TensorEGraph {
 public:
  TensorEGraph();

  egraph::EGraph& egraph() { return g_; }
  const egraph::EGraph& egraph() const { return g_; }
  TensorAnalysis& analysis() { return g_.analysis<TensorAnalysis>(); }
  const TensorAnalysis& analysis() const { return g_.analysis<TensorAnalysis>(); }

  // Adds `term` and everything under it (bodies included): one e-node per
  // distinct term, so equal (e.g. alpha-equivalent) terms share a class.
  egraph::EClassId add_term(ops::TermRef term);

  // Adds the application of `kind` to `children` with `attrs` (canonicalized
  // by the op's type rule). Returns nullopt, with the type error in `error`
  // when given, if the op does not type-check on the children's types.
  std::optional<egraph::EClassId> add_op(ops::OpKind kind, ops::Attrs attrs,
                                         std::span<const egraph::EClassId> children,
                                         std::string* error = nullptr);

  const TensorData& data(egraph::EClassId c) const { return analysis().data(c); }
  const ops::Type& type(egraph::EClassId c) const { return data(c).type(); }
  ops::OpKind kind(egraph::ENodeId n) const;
  const ops::Attrs& attrs(egraph::ENodeId n) const;

 private:
  egraph::EGraph g_;
  std::unordered_map<ops::TermRef, egraph::EClassId> loaded_;
};

}  // namespace eqsat::rules
