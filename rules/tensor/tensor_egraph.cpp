#include "rules/tensor/tensor_egraph.hpp"

#include "rules/tensor/op_symbols.hpp"

#include "ops/diagnostic.hpp"
#include "ops/post_order.hpp"
#include "ops/type_error.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;

TensorEGraph::TensorEGraph(egraph::Explanations explanations)
    : g_(std::make_unique<TensorAnalysis>(), explanations) {}

EClassId TensorEGraph::term_id(ops::TermRef term) {
  add_term(term);
  return loaded_.at(term);
}

EClassId TensorEGraph::add_term(ops::TermRef term) {
  if (const auto it = loaded_.find(term); it != loaded_.end()) return g_.find(it->second);
  std::vector<EClassId> children;
  auto load = [&](ops::TermRef t) {
    if (loaded_.contains(t)) return;
    children.clear();
    for (ops::TermRef o : t->operands()) {
      // The operand's class may hold a representative that still reads a
      // nominal (or an input) the operand does not (a merge not rebuilt yet, or one that
      // dropped the nominal): the operand is a member of the class reading
      // fewer, so it represents the class from now on, and the new e-node's
      // representative (a body's, say) reads no parameter it lacks.
      const EClassId c = loaded_.at(o);
      TensorData& d = analysis().data(c);
      if (!std::ranges::includes(o->free_nominals(), d.rep->free_nominals()) ||
          (d.rep->uses_input() && !o->uses_input()))
        d.rep = o;
      children.push_back(c);
    }
    const egraph::Payload p = analysis().payloads().intern(t->attrs());
    try {
      loaded_.emplace(t, g_.add(op_symbol(t->kind()), p, children));
    } catch (const ops::TypeError& e) {
      throw RefinedTypeError(t, e);
    }
  };
  ops::for_each_post_order(term, ops::Bodies::Enter, load,
                           [&](ops::TermRef t) { return !loaded_.contains(t); });
  return g_.find(loaded_.at(term));
}

std::optional<EClassId> TensorEGraph::add_op(ops::OpKind kind, ops::Attrs attrs,
                                             std::span<const EClassId> children,
                                             std::string* error) {
  std::vector<ops::TermRef> reps;
  for (EClassId c : children) reps.push_back(data(c).rep);
  ops::TermRef rep;
  try {
    rep = ops::Term::make(kind, std::move(attrs), std::move(reps));
  } catch (const ops::TypeError& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
  const egraph::Payload p = analysis().payloads().intern(rep->attrs());
  return g_.add(op_symbol(kind), p, children);
}

void TensorEGraph::mark_unstable(egraph::Symbol op, egraph::Payload payload,
                                 std::span<const EClassId> children) {
  marks_.push_back({op, payload, {children.begin(), children.end()}});
  // The commuted twin (`algebra`'s e⁻ˣ·σ(x) of a marked σ(x)·e⁻ˣ) computes
  // the same unstable way.
  const auto kind = op_of_symbol(op);
  if (kind && ops::is_commutative(*kind) && children.size() == 2)
    marks_.push_back({op, payload, {children[1], children[0]}});
  marks_version_ = ~std::uint64_t{0};
}

bool TensorEGraph::marked(egraph::Symbol op, egraph::Payload p,
                          std::span<const EClassId> kids) const {
  if (marks_.empty()) return false;
  auto key = [&](egraph::Symbol o, egraph::Payload q, std::span<const EClassId> cs) {
    std::vector<std::uint32_t> ids;
    for (EClassId k : cs) ids.push_back(static_cast<std::uint32_t>(g_.find(k).index()));
    return std::tuple(o.id(), q, std::move(ids));
  };
  if (marks_version_ != g_.version()) {
    marked_.clear();
    for (const Mark& m : marks_) marked_.insert(key(m.op, m.payload, m.children));
    marks_version_ = g_.version();
  }
  return marked_.contains(key(op, p, kids));
}

bool TensorEGraph::unstable(egraph::ENodeId n) const {
  return marked(g_.op(n), g_.payload(n), g_.children(n));
}

bool TensorEGraph::unstable(ops::TermRef t) {
  if (marks_.empty() || !loaded_.contains(t)) return false;
  std::vector<EClassId> kids;
  for (ops::TermRef o : t->operands()) kids.push_back(add_term(o));
  return marked(op_symbol(t->kind()), analysis().payloads().intern(t->attrs()), kids);
}

ops::OpKind TensorEGraph::kind(egraph::ENodeId n) const {
  return *op_of_symbol(g_.op(n));
}

const ops::Attrs& TensorEGraph::attrs(egraph::ENodeId n) const {
  return analysis().payloads().attrs(g_.payload(n));
}

namespace {

// A user error for a term the e-graph's constants made ill-typed, at the
// term's source position (else its file's).
ops::DiagnosticError located(const ops::Graph& graph, const RefinedTypeError& e) {
  ops::SourceLocation where;
  if (const ops::SourceLocation* at = graph.location(e.term()))
    where = *at;
  else if (!graph.locations.empty())
    where.file = std::ranges::min_element(graph.locations, {}, [](const auto& l) {
                   return l.second.file;
                 })->second.file;
  else
    where.file = "<graph>";
  return ops::DiagnosticError(where, e.what());
}

}  // namespace

std::vector<EClassId> add_graph(TensorEGraph& g, const ops::Graph& graph) {
  std::vector<EClassId> classes;
  try {
    for (const auto& o : graph.outputs) classes.push_back(g.add_term(o.term));
    for (const auto& d : graph.defs) classes.push_back(g.add_term(d.term));
  } catch (const RefinedTypeError& e) {
    throw located(graph, e);
  }
  return classes;
}

}  // namespace eqsat::rules
