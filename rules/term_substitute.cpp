#include "term_substitute.hpp"

#include <unordered_map>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;
using ops::TermRef;

namespace {

// Adds a body term with nominal k replaced by args[k], memoized per term.
class Instantiator {
 public:
  Instantiator(TensorEGraph& g, std::span<const EClassId> args) : g_(g), args_(args) {}

  std::optional<EClassId> add(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    std::optional<EClassId> c;
    if (t->free_nominals().empty()) {
      c = g_.add_term(t);  // closed: bodies of nested loops, constants, ...
    } else if (t->kind() == OpKind::Nominal) {
      const auto slot = t->attrs().get<std::int64_t>(ops::AttrKey::Slot);
      if (slot < static_cast<std::int64_t>(args_.size()) && args_[slot].valid()) c = args_[slot];
    } else {
      std::vector<EClassId> kids;
      for (TermRef o : t->operands()) {
        const auto k = add(o);
        if (!k) return std::nullopt;
        kids.push_back(*k);
      }
      c = g_.add_op(t->kind(), t->attrs(), kids);
    }
    if (c) memo_.emplace(t, *c);
    return c;
  }

 private:
  TensorEGraph& g_;
  std::span<const EClassId> args_;
  std::unordered_map<TermRef, EClassId> memo_;
};

// Replaces one subterm of a body level, memoized per term.
class ReplaceTerm {
 public:
  ReplaceTerm(TermRef target, TermRef replacement) : target_(target), replacement_(replacement) {}

  TermRef operator()(TermRef t) {
    if (t == target_) return replacement_;
    if (t->free_nominals().empty()) return t;  // the target uses nominals: not in here
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    std::vector<TermRef> kids;
    for (TermRef o : t->operands()) kids.push_back((*this)(o));
    const TermRef out = ops::Term::make(t->kind(), t->attrs(), std::move(kids));
    memo_.emplace(t, out);
    return out;
  }

 private:
  TermRef target_, replacement_;
  std::unordered_map<TermRef, TermRef> memo_;
};

}  // namespace

std::optional<EClassId> instantiate(TensorEGraph& g, TermRef t, std::span<const EClassId> args) {
  return Instantiator(g, args).add(t);
}

TermRef replace_in_body(TermRef fn, TermRef target, TermRef replacement,
                        const ops::TensorType& extra) {
  auto params = fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
  params.push_back(extra);
  std::vector<TermRef> outputs;
  ReplaceTerm replace(target, replacement);
  for (TermRef o : fn->operands()) outputs.push_back(replace(o));
  return ops::Term::fn(std::move(params), std::move(outputs));
}

}  // namespace eqsat::rules
