// The pullback of a call: a call of the def's pullback def, so a def
// differentiated at many call sites is differentiated once, and a def the
// user keeps as a call (`:inline false`) stays a call in its gradient.
#include "rules/autodiff/vjp.hpp"

#include <unordered_map>

namespace eqsat::rules {

using ops::AttrKey;
using ops::OpKind;
using ops::Term;
using ops::TermRef;

TermRef pullback_def(TermRef fn) {
  // Terms live as long as the process, so the memo may too.
  static std::unordered_map<TermRef, TermRef> memo;
  if (auto it = memo.find(fn); it != memo.end()) return it->second;
  auto params = fn->attrs().get<std::vector<ops::TensorType>>(AttrKey::Params);
  const auto& outs = std::get<ops::TupleType>(fn->type()).elements;
  std::vector<TermRef> wrts;
  for (std::size_t p = 0; p < params.size(); ++p)
    if (ops::is_float(params[p].dtype))
      wrts.push_back(Term::nominal(static_cast<std::int64_t>(p), params[p]));
  TermRef def = nullptr;
  if (!wrts.empty()) {
    std::vector<TermRef> seeds;
    for (const ops::TensorType& t : outs) {
      if (!ops::is_float(t.dtype)) {
        seeds.push_back(nullptr);
        continue;
      }
      seeds.push_back(Term::nominal(static_cast<std::int64_t>(params.size()), t));
      params.push_back(t);
    }
    const std::vector<TermRef> body(fn->operands().begin(), fn->operands().end());
    std::vector<TermRef> gw = vjp(body, seeds, wrts);
    for (std::size_t i = 0; i < gw.size(); ++i)
      if (!gw[i]) gw[i] = Term::make(OpKind::ZerosLike, {}, {wrts[i]});
    ops::Attrs attrs{{AttrKey::Params, params}};
    if (const auto* in = fn->attrs().find(AttrKey::Inline)) attrs.set(AttrKey::Inline, *in);
    def = Term::make(OpKind::Fn, std::move(attrs), std::move(gw));
  }
  memo.emplace(fn, def);
  return def;
}

std::vector<TermRef> call_pullback(TermRef call, const std::vector<TermRef>& gouts) {
  std::vector<TermRef> out(call->arity(), nullptr);
  const TermRef fn = call->operand(0);
  const TermRef def = pullback_def(fn);
  if (!def) return out;
  const auto& outs = std::get<ops::TupleType>(fn->type()).elements;
  std::vector<TermRef> args(call->operands().begin(), call->operands().end());
  args[0] = def;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    if (!ops::is_float(outs[i].dtype)) continue;
    TermRef g = i < gouts.size() ? gouts[i] : nullptr;
    if (!g) {
      const TermRef value =
          call->is_tuple()
              ? Term::make(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(i)}}, {call})
              : call;
      g = Term::make(OpKind::ZerosLike, {}, {value});
    }
    args.push_back(g);
  }
  const TermRef back = Term::make(OpKind::Call, {}, args);
  std::size_t k = 0;
  for (std::size_t p = 1; p < call->arity(); ++p) {
    if (!ops::is_float(call->operand(p)->tensor_type().dtype)) continue;
    out[p] = back->is_tuple()
                 ? Term::make(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(k)}}, {back})
                 : back;
    ++k;
  }
  return out;
}

}  // namespace eqsat::rules
