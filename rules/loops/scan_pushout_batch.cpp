#include "rules/loops/scan_pushout_batch.hpp"

#include "ops/run_time_failure.hpp"

#include "rules/tensor/substitute.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;
using ops::TermRef;

namespace {

int rank_of(TermRef t) {
  return t->tensor_type().rank();
}

// How `dot`'s product at every step is one product of the stacked operands
// (numpy.matmul semantics; the step axis leads every per-step value).
enum class DotForm {
  None,
  Direct,        // dot of the stacked or invariant operands as they are
  Swapped,       // W · x_t (x_t a vector) for every t is xs · Wᵀ (or xs · w)
  VectorDot,     // x_t · y_t of vectors: sum(xs * ys) along axis 1
  MatrixVector,  // X_t · y_t: a unit axis after ys, dropped from the product
  VectorMatrix,  // x_t · Y_t: a unit axis before xs's row, dropped after
};

DotForm dot_form(TermRef t, Batch ka, Batch kb) {
  const int ra = rank_of(t->operand(0)), rb = rank_of(t->operand(1));
  if (ka == Batch::PerStep && kb == Batch::Invariant)
    return ra >= 1 && rb <= 2 ? DotForm::Direct : DotForm::None;
  if (ka == Batch::Invariant && kb == Batch::PerStep) {
    if (rb >= 2 && ra <= 2) return DotForm::Direct;  // W broadcasts over the steps
    return rb == 1 && ra <= 2 ? DotForm::Swapped : DotForm::None;
  }
  if (ra == rb) return ra >= 2 ? DotForm::Direct : DotForm::VectorDot;
  if (ra == 2 && rb == 1) return DotForm::MatrixVector;
  if (ra == 1 && rb == 2) return DotForm::VectorMatrix;
  return DotForm::None;
}

// The attributes of an axis-wise op applied to operands with one more
// leading axis: every axis named moves one place right.
ops::Attrs axes_moved_right(ops::Attrs attrs) {
  if (const auto* axis = attrs.find(AttrKey::Axis)) {
    if (const auto* one = std::get_if<std::int64_t>(axis)) {
      attrs.set(AttrKey::Axis, *one + 1);
    } else {
      ops::IntList axes = std::get<ops::IntList>(*axis);
      for (auto& a : axes) ++a;
      attrs.set(AttrKey::Axis, std::move(axes));
    }
  }
  if (attrs.has(AttrKey::Perm)) {
    ops::IntList perm{0};
    for (auto p : attrs.get<ops::IntList>(AttrKey::Perm)) perm.push_back(p + 1);
    attrs.set(AttrKey::Perm, std::move(perm));
  }
  return attrs;
}

}  // namespace

StepBatcher::StepBatcher(TensorEGraph& g, const ScanView& s) : g_(g), s_(s) {
  if (s.spec.until) return;
  for (std::size_t i = 0; i < s.num_sequences(); ++i)
    for (std::int64_t tap : s.spec.sequence_taps[i]) seq_tap_.emplace_back(i, tap);
  invariant_args_.resize(static_cast<std::size_t>(s.num_params()));
  for (std::size_t j = 0; j < s.num_nonsequences(); ++j)
    invariant_args_[static_cast<std::size_t>(s.nonsequence_param(j))] =
        s.operands[s.nonsequence_operand(j)];

  // The trip count: a constant with every sequence long enough for it...
  std::optional<std::int64_t> n;
  bool lengths_known = true;
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < s.num_sequences(); ++i) {
    const ops::Dims& d = g.data(s.operands[s.sequence_operand(i)]).tensor_type().dims;
    if (d[0] == ops::kUnknownDim)
      lengths_known = false;
    else
      shortest = std::min(shortest, d[0] - s.spec.sequence_taps[i].back());
  }
  if (s.spec.has_n_steps) {
    const auto& u = g.data(s.operands[s.n_steps_operand()]).uniform;
    if (u && *u == std::floor(*u) && lengths_known && *u <= static_cast<double>(shortest))
      n = static_cast<std::int64_t>(*u);
  } else if (lengths_known) {
    n = shortest;
  }
  if (n && *n >= 1) {
    steps_ = n;
    ok_ = true;
    return;
  }
  // ...or it follows from the lengths of the sequences at run time.
  ok_ = !n && !s.spec.has_n_steps && s.num_sequences() >= 1;
}

void StepBatcher::read_state_outputs(EClassId scan) {
  std::vector<std::pair<TermRef, std::size_t>> states;
  for (std::size_t j = 0; j < s_.num_mitsot() + s_.num_sitsot(); ++j)
    if (s_.spec.keep.empty() || s_.spec.keep[j] == 0) states.emplace_back(s_.body_output(j), j);
  read_outputs(scan, states);
}

void StepBatcher::read_outputs(EClassId scan,
                               std::span<const std::pair<TermRef, std::size_t>> outputs) {
  scan_ = scan;
  state_output_.insert(outputs.begin(), outputs.end());
  kinds_.clear();
  added_.clear();
}

bool StepBatcher::is_state_slot(std::int64_t slot) const {
  return slot >= s_.mitsot_param(0, 0) && slot < s_.nonsequence_param(0);
}

Batch StepBatcher::classify(TermRef t) {
  if (auto it = kinds_.find(t); it != kinds_.end()) return it->second;
  // Operands are walked only under a term whose kind depends on them.
  ops::for_each_post_order(
      t, ops::Bodies::Enter,
      [&](TermRef u) {
        if (!kinds_.contains(u)) kinds_.emplace(u, kind_from_operands(u));
      },
      [&](TermRef u) {
        if (kinds_.contains(u)) return false;
        const auto own = own_kind(u);
        if (own) kinds_.emplace(u, *own);
        return !own;
      });
  return kinds_.at(t);
}

std::optional<Batch> StepBatcher::own_kind(TermRef t) const {
  const auto& free = t->free_nominals();
  const bool leaf = t->kind() == OpKind::Nominal || t->kind() == OpKind::Const;
  if (state_output_.contains(t)) return Batch::PerStep;
  const bool state = std::ranges::any_of(free, [&](auto k) { return is_state_slot(k); });
  if (t->is_tuple() || (state && (state_output_.empty() || leaf)))
    return Batch::No;  // reads a state other than through its next value
  if (!state && (free.empty() || free.front() >= s_.nonsequence_param(0)))
    return (leaf || steps_ || invariant_work_) ? Batch::Invariant : Batch::No;
  if (t->kind() == OpKind::Nominal) return Batch::PerStep;
  return std::nullopt;
}

Batch StepBatcher::kind_from_operands(TermRef t) const {
  std::vector<Batch> kids;
  for (TermRef o : t->operands()) kids.push_back(kinds_.at(o));
  if (std::ranges::any_of(kids, [](Batch k) { return k == Batch::No; })) return Batch::No;
  // A loop that may run no step never applies the op; batched over no
  // rows, an op that may fail (shapes known only at run time) could fail
  // all the same (issue 25). Its shapes are the same at every step, so
  // with a step it fails in the loop too.
  if (!steps_ && !invariant_work_ && may_fail_per_step(t)) return Batch::No;
  if (ops::is_elementwise(t->kind())) return Batch::PerStep;
  if (t->kind() == OpKind::Dot)
    return dot_form(t, kids[0], kids[1]) == DotForm::None ? Batch::No : Batch::PerStep;
  // The same axes moved one place right; an invariant operand of concat
  // or stack would need repeating first.
  if (ops::is_axis_wise(t->kind()) &&
      std::ranges::all_of(kids, [](Batch k) { return k == Batch::PerStep; }))
    return Batch::PerStep;
  return Batch::No;
}

bool StepBatcher::may_fail_per_step(TermRef t) {
  std::vector<const ops::Type*> types;
  std::vector<const ops::Array*> values;
  for (TermRef o : t->operands()) {
    types.push_back(&o->type());
    values.push_back(o->const_value());
  }
  return ops::may_fail(t->kind(), t->attrs(), types, values);
}

std::optional<EClassId> StepBatcher::window(std::int64_t slot) {
  const auto [i, tap] = seq_tap_[static_cast<std::size_t>(slot)];
  const EClassId seq = s_.operands[s_.sequence_operand(i)];
  ops::Attrs a{{AttrKey::Axis, std::int64_t{0}}};
  if (tap != 0) a.set(AttrKey::Start, tap);
  if (steps_) {
    if (tap == 0 && *steps_ == g_.data(seq).tensor_type().dims[0]) return seq;
    a.set(AttrKey::Stop, tap + *steps_);
  } else if (s_.num_sequences() == 1) {
    // The one sequence of unknown length: the steps stop where its deepest
    // tap reads the last row.
    const std::int64_t deepest = s_.spec.sequence_taps[i].back();
    if (tap == 0 && deepest == 0) return seq;
    if (tap != deepest) a.set(AttrKey::Stop, tap - deepest);
  } else {
    // Several sequences, some of unknown length: the window is cut to the
    // steps the shortest allows, known at run time (never longer than this
    // sequence, so resize_rows only cuts).
    const auto n = run_time_steps();
    const auto from =
        tap == 0 ? std::optional(seq) : g_.add_op(OpKind::Slice, std::move(a), std::array{seq});
    if (!n || !from) return std::nullopt;
    return g_.add_op(OpKind::ResizeRows, {}, std::array{*from, *n});
  }
  return g_.add_op(OpKind::Slice, std::move(a), std::array{seq});
}

std::optional<EClassId> StepBatcher::run_time_steps() {
  if (run_time_steps_) return g_.egraph().find(*run_time_steps_);
  std::optional<EClassId> fewest;
  bool may_be_negative = false;
  for (std::size_t i = 0; i < s_.num_sequences(); ++i) {
    auto allowed = g_.add_op(OpKind::Dim, {{AttrKey::Axis, std::int64_t{0}}},
                             std::array{s_.operands[s_.sequence_operand(i)]});
    const std::int64_t deepest = s_.spec.sequence_taps[i].back();
    if (allowed && deepest > 0) {
      const EClassId depth =
          g_.add_term(ops::Term::scalar(ops::DType::I64, static_cast<double>(deepest)));
      allowed = g_.add_op(OpKind::Sub, {}, std::array{*allowed, depth});
      may_be_negative = true;
    }
    if (!allowed) return std::nullopt;
    fewest = fewest ? g_.add_op(OpKind::Minimum, {}, std::array{*fewest, *allowed}) : allowed;
    if (!fewest) return std::nullopt;
  }
  if (fewest && may_be_negative)
    fewest = g_.add_op(OpKind::Maximum, {},
                       std::array{g_.add_term(ops::Term::scalar(ops::DType::I64, 0)), *fewest});
  run_time_steps_ = fewest;
  return fewest;
}

std::optional<EClassId> StepBatcher::add(TermRef t) {
  // Bottom-up through per-step terms; the first operand that fails stops
  // the walk (nothing more is added to the e-graph).
  bool failed = false;
  ops::for_each_post_order(
      t, ops::Bodies::Enter,
      [&](TermRef u) {
        if (failed || added_.contains(u)) return;
        const auto c = add_one(u);
        if (c)
          added_.emplace(u, *c);
        else
          failed = true;
      },
      [&](TermRef u) {
        return !failed && !added_.contains(u) && classify(u) == Batch::PerStep &&
               !state_output_.contains(u) && u->kind() != OpKind::Nominal;
      });
  if (failed) return std::nullopt;
  return added_.at(t);
}

std::optional<EClassId> StepBatcher::add_one(TermRef t) {
  switch (classify(t)) {
    case Batch::No:
      return std::nullopt;
    case Batch::Invariant:
      return instantiate(g_, t, invariant_args_);
    case Batch::PerStep:
      return add_per_step(t);
  }
  return std::nullopt;
}

std::optional<EClassId> StepBatcher::add_per_step(TermRef t) {
  if (auto it = state_output_.find(t); it != state_output_.end())
    return g_.add_op(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(it->second)}},
                     std::array{*scan_});
  if (t->kind() == OpKind::Nominal) return window(t->attrs().get<std::int64_t>(AttrKey::Slot));
  std::vector<EClassId> kids;
  for (TermRef o : t->operands()) kids.push_back(added_.at(o));
  ops::Attrs attrs = t->attrs();
  if (ops::is_elementwise(t->kind())) {
    // A per-step operand of lower rank than the result is broadcast from
    // the left inside the loop: outside, its size-1 axes go after the step
    // axis, so that the step axes line up.
    for (std::size_t i = 0; i < kids.size(); ++i) {
      if (classify(t->operand(i)) != Batch::PerStep) continue;
      for (int r = rank_of(t->operand(i)); r < rank_of(t); ++r) {
        auto e =
            g_.add_op(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{1}}}, std::array{kids[i]});
        if (!e) return std::nullopt;
        kids[i] = *e;
      }
    }
  } else if (ops::is_axis_wise(t->kind())) {
    attrs = axes_moved_right(std::move(attrs));
  } else if (t->kind() == OpKind::Dot) {
    return add_dot(t, kids[0], kids[1]);
  }
  return checked(t, g_.add_op(t->kind(), std::move(attrs), kids));
}

std::optional<EClassId> StepBatcher::add_dot(TermRef t, EClassId a, EClassId b) {
  auto op = [&](OpKind k, ops::Attrs attrs, auto... xs) {
    return g_.add_op(k, std::move(attrs), std::array{xs...});
  };
  auto axis = [](std::int64_t k) { return ops::Attrs{{AttrKey::Axis, k}}; };
  auto axes = [](std::int64_t k) { return ops::Attrs{{AttrKey::Axis, ops::IntList{k}}}; };
  std::optional<EClassId> c;
  switch (dot_form(t, classify(t->operand(0)), classify(t->operand(1)))) {
    case DotForm::None:
      return std::nullopt;
    case DotForm::Direct:
      c = op(OpKind::Dot, {}, a, b);
      break;
    case DotForm::Swapped:
      if (rank_of(t->operand(0)) == 2) {
        const auto wt = op(OpKind::Transpose, {}, a);
        if (!wt) return std::nullopt;
        a = *wt;
      }
      c = op(OpKind::Dot, {}, b, a);
      break;
    case DotForm::VectorDot:
      if (const auto m = op(OpKind::Mul, {}, a, b)) c = op(OpKind::Sum, axes(1), *m);
      break;
    case DotForm::MatrixVector:
      if (const auto col = op(OpKind::ExpandDims, axis(2), b))
        if (const auto p = op(OpKind::Dot, {}, a, *col)) c = op(OpKind::Squeeze, axes(2), *p);
      break;
    case DotForm::VectorMatrix:
      if (const auto row = op(OpKind::ExpandDims, axis(1), a))
        if (const auto p = op(OpKind::Dot, {}, *row, b)) c = op(OpKind::Squeeze, axes(1), *p);
      break;
  }
  return checked(t, c);
}

std::optional<EClassId> StepBatcher::checked(TermRef t, std::optional<EClassId> c) const {
  if (!c) return std::nullopt;
  // The stacked value has the body value's type behind the step axis.
  const ops::TensorType& got = g_.data(*c).tensor_type();
  const ops::TensorType& step = t->tensor_type();
  if (got.dtype != step.dtype || got.rank() != step.rank() + 1 ||
      !std::equal(step.dims.begin(), step.dims.end(), got.dims.begin() + 1, [](auto a, auto b) {
        return a == b || a == ops::kUnknownDim || b == ops::kUnknownDim;
      }))
    return std::nullopt;
  return c;
}

}  // namespace eqsat::rules
