#include "gradient.hpp"

#include "ops/pullback.hpp"

#include <fmt/format.h>

#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace eqsat::rules {

using ops::OpKind;
using ops::Term;
using ops::TermRef;

namespace {

// Replaces the nominals of one body level by `args`.
class Instantiate {
 public:
  explicit Instantiate(std::span<const TermRef> args) : args_(args) {}
  TermRef operator()(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out = t;
    if (t->kind() == OpKind::Nominal) {
      const auto slot = t->attrs().get<std::int64_t>(ops::AttrKey::Slot);
      if (slot < 0 || slot >= static_cast<std::int64_t>(args_.size()))
        throw ops::PullbackError("grad: a call has fewer arguments than its body reads");
      out = args_[static_cast<std::size_t>(slot)];
    } else if (t->kind() != OpKind::Fn && !t->free_nominals().empty()) {
      std::vector<TermRef> xs;
      for (TermRef o : t->operands()) xs.push_back((*this)(o));
      out = Term::make(t->kind(), t->attrs(), std::move(xs));
    }
    memo_.emplace(t, out);
    return out;
  }

 private:
  std::span<const TermRef> args_;
  std::unordered_map<TermRef, TermRef> memo_;
};

class InlineCalls {
 public:
  TermRef operator()(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out = t;
    if (t->kind() != OpKind::Fn && t->arity() > 0) {
      std::vector<TermRef> xs;
      bool changed = false;
      for (TermRef o : t->operands()) {
        xs.push_back((*this)(o));
        changed |= xs.back() != o;
      }
      if (changed) out = Term::make(t->kind(), t->attrs(), xs);
      if (out->kind() == OpKind::Call && out->operand(0)->arity() == 1 && !out->is_tuple())
        out = (*this)(body_output(out, 0));
      else if (out->kind() == OpKind::Get && out->operand(0)->kind() == OpKind::Call)
        out = (*this)(
            body_output(out->operand(0), out->attrs().get<std::int64_t>(ops::AttrKey::Index)));
    }
    memo_.emplace(t, out);
    return out;
  }

 private:
  static TermRef body_output(TermRef call, std::int64_t index) {
    TermRef fn = call->operand(0);
    std::vector<TermRef> args(call->operands().begin() + 1, call->operands().end());
    return Instantiate(args)(fn->operand(static_cast<std::size_t>(index)));
  }
  std::unordered_map<TermRef, TermRef> memo_;
};

}  // namespace

TermRef inline_calls_in_term(TermRef t) {
  return InlineCalls()(t);
}

TermRef gradient(TermRef cost, TermRef wrt) {
  cost = inline_calls_in_term(cost);
  const ops::TensorType& ct = cost->tensor_type();
  if (!ct.is_scalar() || !ops::is_float(ct.dtype))
    throw ops::PullbackError("grad: the cost must be a float scalar");

  // The terms on a path from wrt to cost, in post-order (operands first).
  std::unordered_map<TermRef, bool> depends;
  std::vector<TermRef> order;
  struct Frame {
    TermRef t;
    std::size_t next;
  };
  std::vector<Frame> stack{{cost, 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.t == wrt) {
      depends[f.t] = true;
      order.push_back(f.t);
      stack.pop_back();
      continue;
    }
    if (f.t->kind() != OpKind::Fn && f.next < f.t->arity()) {
      TermRef o = f.t->operand(f.next++);
      if (!depends.contains(o)) stack.push_back({o, 0});
      continue;
    }
    bool d = false;
    if (f.t->kind() != OpKind::Fn)
      for (TermRef o : f.t->operands()) d = d || depends.at(o);
    depends[f.t] = d;
    if (d) order.push_back(f.t);
    stack.pop_back();
  }

  std::unordered_map<TermRef, TermRef> cotangent{{cost, Term::scalar(ct.dtype, 1.0)}};
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    TermRef t = *it;
    if (t == wrt) continue;
    const auto found = cotangent.find(t);
    if (found == cotangent.end()) continue;
    const std::vector<TermRef> gs = ops::pullback(t, found->second);
    for (std::size_t i = 0; i < gs.size(); ++i) {
      TermRef o = t->operand(i);
      if (!gs[i] || !depends.at(o)) continue;
      auto [slot, fresh] = cotangent.try_emplace(o, gs[i]);
      if (!fresh) slot->second = Term::make(OpKind::Add, {}, {slot->second, gs[i]});
    }
  }
  const auto found = cotangent.find(wrt);
  if (found == cotangent.end()) return Term::make(OpKind::ZerosLike, {}, {wrt});
  return found->second;
}

}  // namespace eqsat::rules
