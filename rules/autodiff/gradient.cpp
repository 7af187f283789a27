#include "rules/autodiff/gradient.hpp"

#include "rules/autodiff/vjp.hpp"

#include "ops/post_order.hpp"
#include "rules/autodiff/pullback.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace eqsat::rules {

using ops::AttrKey;
using ops::OpKind;
using ops::Term;
using ops::TermRef;

namespace {

TermRef make(OpKind k, std::vector<TermRef> xs, ops::Attrs attrs = {}) {
  return Term::make(k, std::move(attrs), std::move(xs));
}

bool same_dims(TermRef a, TermRef b) {
  return !a->is_tuple() && !b->is_tuple() && a->tensor_type().dims == b->tensor_type().dims;
}

bool elementwise(TermRef t) {
  const auto g = t->info().group;
  return g == ops::OpGroup::Unary || g == ops::OpGroup::Binary;
}

// True for ops whose results are a tuple read through `get` and whose
// pullback needs the cotangents of all outputs at once.
bool tuple_producer(TermRef t) {
  return t->is_tuple() && (t->kind() == OpKind::Scan || t->kind() == OpKind::Call);
}

// The cotangents flowing back to terms during one backward pass. Besides
// the cotangent, each term may carry a zero mask: a bool term (broadcasting
// to the term's shape) true where every contribution to its cotangent is
// known to be exactly zero. `where` creates masks (the branch not taken),
// same-shape elementwise ops pass them on, and an op that scales its
// cotangent applies them with `where` so that 0 * inf never becomes a NaN.
//
// A term known to hold no element (a dimension of static length 0) takes
// no cotangent: its value is the same whatever its operands are, so
// nothing flows back from it (a zero cotangent summed over its empty axis
// would meet the NaN derivative of an operand broadcast along it).
class Cotangents {
 public:
  void add(TermRef t, TermRef g, TermRef mask) {
    if (!t->is_tuple() &&
        std::ranges::find(t->tensor_type().dims, 0) != t->tensor_type().dims.end())
      return;
    auto [it, fresh] = cot_.try_emplace(t, g);
    if (fresh) {
      if (mask) mask_[t] = mask;
      return;
    }
    it->second = make(OpKind::Add, {it->second, g});
    if (auto m = mask_.find(t); m != mask_.end()) {
      if (mask)
        m->second = make(OpKind::LogicalAnd, {m->second, mask});
      else
        mask_.erase(m);
    }
  }
  TermRef cotangent(TermRef t) const {
    const auto it = cot_.find(t);
    return it == cot_.end() ? nullptr : it->second;
  }
  TermRef mask(TermRef t) const {
    const auto it = mask_.find(t);
    return it == mask_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<TermRef, TermRef> cot_, mask_;
};

// True at the elements of indexing op t's operand i whose cotangent is
// zero: those t does not read, or reads only where its own cotangent is
// known zero (`z`). An indexing op's pullback moves each cotangent
// element to the operand elements it read, so pulling back 1 where t's
// cotangent `g` may be nonzero counts the reads of each element.
TermRef unread(TermRef t, TermRef g, TermRef z, std::size_t i) {
  const ops::DType dt = g->tensor_type().dtype;
  TermRef read = make(OpKind::OnesLike, {g});
  if (z) read = make(OpKind::Where, {z, Term::scalar(dt, 0.0), read});
  return make(OpKind::Eq, {ops::pullback(t, read)[i], Term::scalar(dt, 0.0)});
}

// True when `t` has no element when the graph runs (read from its
// cotangent `g`, of t's shape, which the backward pass computes anyway),
// for an operand `o` that t broadcasts or contracts along a dimension of t
// known only at run time: then o's cotangent is a sum over nothing, a zero
// that must not meet a NaN derivative of o. Such an operand has no unknown
// dimension, or, for elementwise ops, a known one (or none) where t's is
// unknown, aligned from the right. nullptr when there is none: an operand
// whose own dimensions are unknown there is empty with t.
TermRef empty_along(TermRef t, TermRef g, TermRef o) {
  const ops::Dims& dims = t->tensor_type().dims;
  const ops::Dims& od = o->tensor_type().dims;
  const bool aligned = elementwise(t) || t->kind() == OpKind::Where;
  if (!aligned && !o->tensor_type().is_static()) return nullptr;
  const auto lead =
      static_cast<std::ptrdiff_t>(dims.size()) - static_cast<std::ptrdiff_t>(od.size());
  TermRef empty = nullptr;
  for (std::size_t a = 0; a < dims.size(); ++a) {
    const auto oa = static_cast<std::ptrdiff_t>(a) - lead;
    if (dims[a] != ops::kUnknownDim ||
        (aligned && oa >= 0 && od[static_cast<std::size_t>(oa)] == ops::kUnknownDim))
      continue;
    const TermRef n = make(OpKind::Dim, {g}, {{AttrKey::Axis, static_cast<std::int64_t>(a)}});
    const TermRef e = make(OpKind::Eq, {n, Term::scalar(ops::DType::I64, 0.0)});
    empty = empty ? make(OpKind::LogicalOr, {empty, e}) : e;
  }
  return empty;
}

// True when t's pullback to operand i scales the cotangent by a finite
// constant (a product or quotient with finite constants, no division by
// 0): a zero cotangent stays exactly zero, so no mask needs selecting.
bool finite_scale(TermRef t, std::size_t i) {
  const bool mul = t->kind() == OpKind::Mul, div = t->kind() == OpKind::Div && i == 0;
  if (!mul && !div) return false;
  const ops::Array* c = t->operand(1 - i)->const_value();
  if (!c) return false;
  for (std::int64_t k = 0; k < c->size(); ++k)
    if (!std::isfinite(c->element(k)) || (div && c->element(k) == 0)) return false;
  return true;
}

// True when loop `s` ran no step, for a loop whose number of steps is
// known only when it runs (nullptr otherwise). Its outputs then hold no
// row (the initial states are not among them), so every operand's
// cotangent is exactly zero: an initial state's own derivative may be NaN
// (`sqrt` of a negative) and must not meet it.
TermRef ran_no_step(TermRef s) {
  const TermRef out0 = make(OpKind::Get, {s}, {{AttrKey::Index, std::int64_t{0}}});
  if (out0->tensor_type().dims[0] != ops::kUnknownDim) return nullptr;
  const TermRef rows = make(OpKind::Dim, {out0}, {{AttrKey::Axis, std::int64_t{0}}});
  return make(OpKind::Eq, {rows, Term::scalar(ops::DType::I64, 0.0)});
}

// The zero masks of loop `s`'s operand cotangents `gs`. Initial states
// and non-sequences: wherever the cotangent is exactly 0 when the graph
// runs, as the reverse loop's own zero seeds are masked (the steps that
// ran did not pass that element on, or none ran). Sequences, one row per
// step and often large: only where the loop ran no step (ran_no_step).
std::vector<TermRef> loop_operand_masks(TermRef s, const std::vector<TermRef>& gs) {
  const auto& spec = s->attrs().get<ops::ScanSpec>(AttrKey::Scan);
  const std::size_t first_state = (spec.has_n_steps ? 2 : 1) + spec.sequence_taps.size();
  std::vector<TermRef> masks(gs.size(), nullptr);
  std::fill_n(masks.begin(), std::min(first_state, gs.size()), ran_no_step(s));
  for (std::size_t i = first_state; i < gs.size(); ++i)
    if (gs[i] && ops::is_float(gs[i]->tensor_type().dtype))
      masks[i] = make(OpKind::Eq, {gs[i], Term::scalar(gs[i]->tensor_type().dtype, 0.0)});
  return masks;
}

// The terms on a path from a wrt to an output, in post-order (bodies are
// closed: a `fn` never depends on a wrt).
std::vector<TermRef> dependent_terms(std::span<const TermRef> outputs,
                                     const std::unordered_set<TermRef>& targets) {
  std::unordered_map<TermRef, bool> depends;
  std::vector<TermRef> order;
  auto mark = [&](TermRef t) {
    bool d = targets.contains(t);
    if (!d && t->kind() != OpKind::Fn)
      for (TermRef o : t->operands()) d = d || depends.at(o);
    depends[t] = d;
    if (d) order.push_back(t);
  };
  ops::for_each_post_order(outputs, ops::Bodies::Skip, mark,
                           [&](TermRef t) { return !targets.contains(t); });
  return order;
}

}  // namespace

std::vector<TermRef> vjp(std::span<const TermRef> outputs, std::span<const TermRef> seeds,
                         std::span<const TermRef> wrts, const ScanPullbackOptions& options,
                         std::span<const TermRef> masks) {
  const std::unordered_set<TermRef> targets(wrts.begin(), wrts.end());
  const std::vector<TermRef> order = dependent_terms(outputs, targets);
  const std::unordered_set<TermRef> on_path(order.begin(), order.end());
  Cotangents cots;
  std::unordered_map<TermRef, std::vector<TermRef>> tuple_cotangent;  // per output
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (seeds[i]) cots.add(outputs[i], seeds[i], masks.empty() ? nullptr : masks[i]);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    TermRef t = *it;
    if (targets.contains(t)) continue;
    std::vector<TermRef> gs, masks;
    if (tuple_producer(t)) {
      const auto found = tuple_cotangent.find(t);
      if (found == tuple_cotangent.end()) continue;
      if (t->kind() == OpKind::Scan) {
        gs = scan_pullback(t, found->second, options);
        masks = loop_operand_masks(t, gs);
      } else {
        gs = call_pullback(t, found->second);
      }
    } else {
      const TermRef g = cots.cotangent(t);
      if (!g) continue;
      if (t->kind() == OpKind::Get && tuple_producer(t->operand(0))) {
        const TermRef s = t->operand(0);
        auto& slots = tuple_cotangent[s];
        slots.resize(std::get<ops::TupleType>(s->type()).elements.size(), nullptr);
        TermRef& slot =
            slots[static_cast<std::size_t>(t->attrs().get<std::int64_t>(AttrKey::Index))];
        slot = slot ? make(OpKind::Add, {slot, g}) : g;
        continue;
      }
      if (t->kind() == OpKind::Call) {
        gs = call_pullback(t, {g});
      } else {
        gs = ops::pullback(t, g);
        masks.assign(gs.size(), nullptr);
        const TermRef z = cots.mask(t);
        if (t->kind() == OpKind::Where) {
          // The branch not taken gets a zero cotangent: mask it.
          const TermRef c = t->operand(0);
          const TermRef taken[] = {make(OpKind::LogicalNot, {c}), c};
          for (std::size_t i = 1; i < 3; ++i)
            if (gs[i] && same_dims(t->operand(i), t))
              masks[i] = z ? make(OpKind::LogicalOr, {z, taken[i - 1]}) : taken[i - 1];
        } else if (t->info().group == ops::OpGroup::Indexing) {
          for (std::size_t i = 0; i < gs.size(); ++i)
            if (gs[i] && same_dims(t->operand(i), gs[i])) masks[i] = unread(t, g, z, i);
        } else if (t->kind() == OpKind::Softmax || t->kind() == OpKind::Logsumexp) {
          // An element at −∞ weighs exactly 0 in a softmax or log-sum-exp,
          // and still does a small step away: its cotangent is a zero
          // mask, so the infinite derivative that made it −∞ (a division
          // by a zero, a log of 0) does not turn it into NaN.
          const TermRef x = t->operand(0);
          if (gs[0] && ops::is_float(x->tensor_type().dtype))
            masks[0] = make(OpKind::Eq, {x, Term::scalar(x->tensor_type().dtype, -INFINITY)});
        } else if (z && elementwise(t)) {
          for (std::size_t i = 0; i < gs.size(); ++i) {
            if (!gs[i] || !same_dims(t->operand(i), t)) continue;
            // An op whose pullback multiplies the cotangent by a derivative
            // that can be infinite or NaN (exp of a large value, 1/x at 0,
            // ...) gets a zero cotangent where it is known to be zero,
            // rather than 0 * inf.
            if (!ops::has_unit_pullback(t->kind()) && !finite_scale(t, i))
              gs[i] =
                  make(OpKind::Where, {z, Term::scalar(gs[i]->tensor_type().dtype, 0.0), gs[i]});
            masks[i] = z;
          }
        }
        for (std::size_t i = 0; i < gs.size(); ++i)
          if (gs[i] && !t->operand(i)->is_tuple())
            if (const TermRef e = empty_along(t, g, t->operand(i)))
              masks[i] = masks[i] ? make(OpKind::LogicalOr, {masks[i], e}) : e;
      }
    }
    for (std::size_t i = 0; i < gs.size(); ++i) {
      TermRef o = t->operand(i);
      if (gs[i] && on_path.contains(o)) cots.add(o, gs[i], masks.empty() ? nullptr : masks[i]);
    }
  }
  std::vector<TermRef> out;
  for (TermRef w : wrts) out.push_back(cots.cotangent(w));
  return out;
}

TermRef gradient(TermRef cost, TermRef wrt, const GradientOptions& options) {
  const ops::TensorType& ct = cost->tensor_type();
  if (!ct.is_scalar() || !ops::is_float(ct.dtype))
    throw ops::PullbackError("grad: the cost must be a float scalar");
  if (wrt->is_tuple() || !ops::is_float(wrt->tensor_type().dtype))
    throw ops::PullbackError("grad: WRT must be a float value");
  const TermRef seed = Term::scalar(ct.dtype, 1.0);
  const TermRef g = vjp(std::span(&cost, 1), std::span(&seed, 1), std::span(&wrt, 1),
                        {.checkpoint = options.checkpoint})[0];
  return g ? g : Term::make(OpKind::ZerosLike, {}, {wrt});
}

}  // namespace eqsat::rules
