// The pullback of a call: a call of the def's pullback def, so a def
// differentiated at many call sites is differentiated once, and a def the
// user keeps as a call (`:inline false`) stays a call in its gradient.
#include "rules/autodiff/vjp.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace eqsat::rules {

using ops::AttrKey;
using ops::OpKind;
using ops::Term;
using ops::TermRef;

namespace {

// A pullback def and, per float parameter of its def (in order), whether
// its cotangent is structurally zero (vjp's nullptr: the def's output is
// `zeros_like` of the parameter).
struct PullbackDef {
  TermRef def = nullptr;
  std::vector<bool> zero;
};

// The pullback def of `fn` for cotangents of the float outputs `seeded`
// only (all of them when empty): the others are structural zeros, not
// parameters, so their zero never meets a NaN derivative in the body.
const PullbackDef& specialized(TermRef fn, const std::vector<bool>& seeded) {
  // Terms live as long as the process, so the memo may too.
  static std::map<std::pair<TermRef, std::vector<bool>>, PullbackDef> memo;
  auto [it, fresh] = memo.try_emplace({fn, seeded});
  if (!fresh) return it->second;
  auto params = fn->attrs().get<std::vector<ops::TensorType>>(AttrKey::Params);
  const auto& outs = std::get<ops::TupleType>(fn->type()).elements;
  std::vector<TermRef> wrts;
  for (std::size_t p = 0; p < params.size(); ++p)
    if (ops::is_float(params[p].dtype))
      wrts.push_back(Term::nominal(static_cast<std::int64_t>(p), params[p]));
  if (wrts.empty()) return it->second;
  std::vector<TermRef> seeds;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    if (!ops::is_float(outs[i].dtype) || (!seeded.empty() && !seeded[i])) {
      seeds.push_back(nullptr);
      continue;
    }
    seeds.push_back(Term::nominal(static_cast<std::int64_t>(params.size()), outs[i]));
    params.push_back(outs[i]);
  }
  const std::vector<TermRef> body(fn->operands().begin(), fn->operands().end());
  std::vector<TermRef> gw = vjp(body, seeds, wrts);
  for (std::size_t i = 0; i < gw.size(); ++i) {
    it->second.zero.push_back(!gw[i]);
    if (!gw[i]) gw[i] = Term::make(OpKind::ZerosLike, {}, {wrts[i]});
  }
  ops::Attrs attrs{{AttrKey::Params, params}};
  if (const auto* in = fn->attrs().find(AttrKey::Inline)) attrs.set(AttrKey::Inline, *in);
  it->second.def = Term::make(OpKind::Fn, std::move(attrs), std::move(gw));
  return it->second;
}

}  // namespace

TermRef pullback_def(TermRef fn) {
  return specialized(fn, {}).def;
}

std::vector<TermRef> call_pullback(TermRef call, const std::vector<TermRef>& gouts) {
  std::vector<TermRef> out(call->arity(), nullptr);
  const TermRef fn = call->operand(0);
  const auto& outs = std::get<ops::TupleType>(fn->type()).elements;
  std::vector<bool> seeded(outs.size());
  for (std::size_t i = 0; i < outs.size(); ++i)
    seeded[i] = !ops::is_float(outs[i].dtype) || (i < gouts.size() && gouts[i]);
  if (std::ranges::all_of(seeded, [](bool s) { return s; })) seeded.clear();
  const PullbackDef& pd = specialized(fn, seeded);
  if (!pd.def) return out;
  std::vector<TermRef> args(call->operands().begin(), call->operands().end());
  args[0] = pd.def;
  for (std::size_t i = 0; i < outs.size(); ++i)
    if (ops::is_float(outs[i].dtype) && i < gouts.size() && gouts[i]) args.push_back(gouts[i]);
  const TermRef back = Term::make(OpKind::Call, {}, args);
  std::size_t k = 0;
  for (std::size_t p = 1; p < call->arity(); ++p) {
    if (!ops::is_float(call->operand(p)->tensor_type().dtype)) continue;
    if (!pd.zero[k])
      out[p] =
          back->is_tuple()
              ? Term::make(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(k)}}, {back})
              : back;
    ++k;
  }
  return out;
}

}  // namespace eqsat::rules
