#include "egraph/rewrite.hpp"

#include "support/internal_error.hpp"

#include <algorithm>
#include <stdexcept>

namespace eqsat::egraph {

PatternApplier::PatternApplier(Pattern rhs, std::optional<Pattern> lhs)
    : rhs_(std::move(rhs)), lhs_(std::move(lhs)) {
  // A left side with an `any` payload has no instance to explain from.
  if (lhs_)
    for (std::size_t i = 0; i < lhs_->size(); ++i)
      if (!lhs_->node(i).is_var && lhs_->node(i).payload.kind == PayloadMatch::Kind::Any) {
        lhs_.reset();
        break;
      }
  if (rhs_.empty()) throw std::invalid_argument("empty right-hand side");
  const std::uint32_t vars = static_cast<std::uint32_t>(rhs_.vars().size());
  std::vector<std::uint32_t> value_of(rhs_.size());
  for (std::uint32_t i = 0; i < rhs_.size(); ++i) {
    const Pattern::Node& n = rhs_.node(i);
    if (n.is_var) {
      value_of[i] = n.var;
      continue;
    }
    if (n.payload.kind == PayloadMatch::Kind::Any) {
      throw std::invalid_argument("right-hand side " + rhs_.to_string() +
                                  " has an 'any' payload (@_): it cannot be built");
    }
    Step st;
    st.op = n.op;
    st.payload = n.payload.kind == PayloadMatch::Kind::Var ? 0 : n.payload.value;
    st.pvar = n.payload.kind == PayloadMatch::Kind::Var ? n.payload.var : kFixed;
    st.arity = static_cast<std::uint32_t>(rhs_.children(i).size());
    st.first_arg = static_cast<std::uint32_t>(args_.size());
    for (std::uint32_t c : rhs_.children(i)) args_.push_back(value_of[c]);
    value_of[i] = vars + static_cast<std::uint32_t>(steps_.size());
    steps_.push_back(st);
  }
  root_value_ = value_of[rhs_.root()];
  values_.resize(vars + steps_.size());
  std::uint32_t widest = 0;
  for (const Step& st : steps_) widest = std::max(widest, st.arity);
  kids_.resize(widest);
}

void PatternApplier::bind(const VarLayout& layout) {
  var_index_.clear();
  pvar_index_.clear();
  for (Symbol v : rhs_.vars()) {
    std::optional<std::uint32_t> i = layout.index_of(v);
    if (!i) {
      throw std::invalid_argument("variable " + std::string(v.name()) +
                                  " of the right-hand side is not bound by the left-hand side");
    }
    var_index_.push_back(*i);
  }
  for (Symbol v : rhs_.payload_vars()) {
    std::optional<std::uint32_t> i = layout.payload_index_of(v);
    if (!i) {
      throw std::invalid_argument("payload variable " + std::string(v.name()) +
                                  " of the right-hand side is not bound by the left-hand side");
    }
    pvar_index_.push_back(*i);
  }
}

EClassId PatternApplier::instantiate(EGraph& g, const Subst& subst) {
  // Every array is read through a local pointer: `add` could, for all the
  // compiler knows, change this applier's vectors, which it would then
  // reload after each call.
  EClassId* v = values_.data();
  const std::size_t vars = var_index_.size();
  const std::uint32_t* var_index = var_index_.data();
  for (std::size_t k = 0; k < vars; ++k) v[k] = subst[var_index[k]];
  // Children gather into `kids`, sized once for the widest step.
  EClassId* kids = kids_.data();
  const std::uint32_t* args = args_.data();
  const Step* steps = steps_.data();
  const std::size_t n_steps = steps_.size();
  for (std::size_t k = 0; k < n_steps; ++k) {
    const Step& st = steps[k];
    const std::uint32_t* a = args + st.first_arg;
    // Two children or fewer (nearly every operator) without a loop.
    if (st.arity >= 1) kids[0] = v[a[0]];
    if (st.arity >= 2) kids[1] = v[a[1]];
    for (std::uint32_t j = 2; j < st.arity; ++j) kids[j] = v[a[j]];
    const Payload p = st.pvar == kFixed ? st.payload : subst.payload(pvar_index_[st.pvar]);
    v[vars + k] = g.add(st.op, p, std::span<const EClassId>(kids, st.arity));
  }
  return v[root_value_];
}

bool PatternApplier::apply(EGraph& g, EClassId root, const Subst& subst) {
  if (g.explaining() && lhs_) [[unlikely]] {
    const EClassId from = egraph::instantiate(g, *lhs_, subst);
    return g.merge(from, instantiate(g, subst));
  }
  return g.merge(root, instantiate(g, subst));
}

EClassId instantiate(EGraph& g, const Pattern& p, const Subst& subst) {
  std::vector<EClassId> ids(p.size());
  std::vector<EClassId> kids;
  for (std::uint32_t i = 0; i < p.size(); ++i) {
    const Pattern::Node& n = p.node(i);
    if (n.is_var) {
      ids[i] = subst.get(p.vars()[n.var]);
      continue;
    }
    kids.clear();
    for (std::uint32_t c : p.children(i)) kids.push_back(ids[c]);
    const Payload payload = n.payload.kind == PayloadMatch::Kind::Var
                                ? subst.get_payload(p.payload_vars()[n.payload.var])
                                : n.payload.value;
    ids[i] = g.add(n.op, payload, kids);
  }
  return ids[p.root()];
}

Rewrite::Rewrite(std::string name, std::shared_ptr<const Searcher> searcher,
                 std::shared_ptr<Applier> applier)
    : name_(std::move(name)), searcher_(std::move(searcher)), applier_(std::move(applier)) {
  EQSAT_ASSERT(!name_.empty()) << "a rewrite needs a name";
  EQSAT_ASSERT(searcher_ && applier_) << "rewrite " << name_ << ": missing part";
  reason_ = Symbol(name_);
  try {
    applier_->bind(searcher_->layout());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("rewrite " + name_ + ": " + e.what());
  }
  const auto* pattern = dynamic_cast<const PatternSearcher*>(searcher_.get());
  if (pattern && pattern->program().skips_seen() &&
      dynamic_cast<const PatternApplier*>(applier_.get()))
    seen_program_ = &pattern->program();
}

std::size_t Rewrite::search_unseen(const EGraph& g, Matches& out, std::size_t limit,
                                   const MatchSink* sink, std::uint32_t seen_through,
                                   std::size_t* skipped) const {
  EQSAT_ASSERT(skips_seen()) << "rewrite " << name_ << " cannot skip the matches it saw";
  return seen_program_->search(g, out, limit, sink, seen_through, skipped);
}

Rewrite::Rewrite(std::string name, const Pattern& lhs, std::shared_ptr<Applier> applier)
    : Rewrite(std::move(name), std::make_shared<PatternSearcher>(lhs), std::move(applier)) {}

Rewrite::Rewrite(std::string name, const MultiPattern& lhs, std::shared_ptr<Applier> applier)
    : Rewrite(std::move(name), std::make_shared<PatternSearcher>(lhs), std::move(applier)) {}

Rewrite::Rewrite(std::string name, const Pattern& lhs, const Pattern& rhs)
    : Rewrite(std::move(name), lhs, std::make_shared<PatternApplier>(rhs, lhs)) {}

Rewrite Rewrite::parse(std::string name, std::string_view lhs, std::string_view rhs,
                       const Syntax& syntax) {
  return Rewrite(std::move(name), Pattern::parse(lhs, syntax), Pattern::parse(rhs, syntax));
}

std::vector<Rewrite> Rewrite::bidirectional(const std::string& name, std::string_view lhs,
                                            std::string_view rhs, const Syntax& syntax) {
  Pattern l = Pattern::parse(lhs, syntax), r = Pattern::parse(rhs, syntax);
  auto sorted = [](std::vector<Symbol> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  if (sorted(l.vars()) != sorted(r.vars()) ||
      sorted(l.payload_vars()) != sorted(r.payload_vars())) {
    throw std::invalid_argument(
        "rewrite " + name + ": both sides of a bidirectional rule must bind the same variables");
  }
  std::vector<Rewrite> out;
  out.emplace_back(name, l, r);
  out.emplace_back(name + "-rev", r, l);
  return out;
}

bool Rewrite::apply_match(EGraph& g, const Matches& m, std::size_t i) const {
  Subst s = m.subst(i);
  EClassId root = m.roots[i];
  for (const Condition& c : conditions_) {
    if (!c(g, root, s)) return false;
  }
  return applier_->apply(g, root, s);
}

std::string Rewrite::to_string() const {
  return name_ + ": " + searcher_->to_string() + " => " + applier_->to_string();
}

}  // namespace eqsat::egraph
