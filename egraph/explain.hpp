// Explanations (egg's proof forest): why two terms of an e-graph are equal,
// as a chain of rewrite steps, each at one position of the whole term.
//
// With explanations on (EGraph's constructor), every e-class id names one
// concrete term: `add` returns the id of exactly the term asked for (an
// e-node whose children are the given ids; a hash-cons hit whose children
// differ gets an id of its own, equal to the hit by congruence), and every
// union joins two such terms with a justification: the rule that fired, or
// `congruence` when rebuild found two e-nodes with equal children. The
// unions form a forest whose trees are the e-classes, so the tree path
// between two terms explains their equality; a congruence edge is explained
// child by child, recursively, with the paths that existed when it was
// added (so expansion terminates).
//
//   EGraph g(nullptr, Explanations::On);
//   EClassId a = g.add_expr(RecExpr::parse("(+ x 0)")), x = g.add(Symbol("x"));
//   g.merge(a, x, Symbol("add-zero"));
//   g.rebuild();
//   for (const ProofStep& s : g.explain(a, x))  // one step: add-zero at the root
//     std::cout << s.rule.name() << " " << g.proofs()->to_string(s.before) << "\n";
#pragma once

#include "egraph/enode.hpp"
#include "egraph/id.hpp"
#include "egraph/symbol.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace eqsat::egraph {

// Whether an EGraph records why its classes merged.
enum class Explanations { Off, On };

// One rewrite of a subterm: `before` (the subterm at `position`, a path of
// child indices from the root) becomes `after`. `forward` is false when the
// rule was applied right to left (its right side matched `before`).
struct ProofStep {
  Symbol rule;
  bool forward = true;
  std::vector<std::uint32_t> position;
  EClassId before, after;  // term ids (ProofForest::term)
};

// The justification of congruence unions found by rebuild; never a step of
// an explanation (they are expanded child by child).
Symbol congruence_reason();

// The terms named by e-class ids and the forest of justified unions
// between them. Owned by an EGraph with explanations on; see above.
class ProofForest {
 public:
  ProofForest();
  ~ProofForest();
  ProofForest(const ProofForest&) = delete;
  ProofForest& operator=(const ProofForest&) = delete;

  // Records term `id` (which must be the next id) as op@payload(children).
  void add_term(EClassId id, Symbol op, Payload payload, std::span<const EClassId> children);
  // The id of a term with this content, if one was recorded.
  std::optional<EClassId> find_term(Symbol op, Payload payload,
                                    std::span<const EClassId> children) const;
  // Joins the trees of a and b (which must differ) by an edge a -> b.
  void add_edge(EClassId a, EClassId b, Symbol why);

  Symbol op(EClassId t) const { return terms_[t.index()].op; }
  Payload payload(EClassId t) const { return terms_[t.index()].payload; }
  std::span<const EClassId> children(EClassId t) const {
    const Term& r = terms_[t.index()];
    return {kids_.data() + r.first_child, r.arity};
  }
  std::size_t num_terms() const { return terms_.size(); }
  std::size_t num_edges() const { return edges_; }
  std::size_t bytes() const;

  // The steps turning term a into term b, in order; empty when a == b.
  // They must be terms of one tree (proven equal; else an InternalError);
  // throws std::length_error beyond `max_steps`.
  std::vector<ProofStep> explain(EClassId a, EClassId b, std::size_t max_steps = 100000) const;

  // The term as an s-expression `(op@payload child...)`, `op` for a leaf of
  // payload 0 (for debugging and the core's tests).
  std::string to_string(EClassId t) const;

 private:
  struct Term {
    Symbol op;
    Payload payload = 0;
    std::uint32_t first_child = 0, arity = 0;
  };
  // The edge from a term to its parent in its tree.
  struct Edge {
    EClassId parent;  // itself for a root
    Symbol why;
    bool forward = true;  // the rule rewrote this term into the parent
  };
  struct Index;

  void reroot(EClassId t);
  void expand(EClassId from, EClassId to, Symbol why, bool forward,
              std::vector<std::uint32_t>& position, std::vector<ProofStep>& out,
              std::size_t max_steps) const;
  void path(EClassId a, EClassId b, std::vector<std::uint32_t>& position,
            std::vector<ProofStep>& out, std::size_t max_steps) const;

  std::vector<Term> terms_;
  std::vector<EClassId> kids_;
  std::vector<Edge> forest_;
  std::unique_ptr<Index> index_;
  std::size_t edges_ = 0;
};

}  // namespace eqsat::egraph
