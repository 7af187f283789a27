#include "scan_pushout_batch.hpp"

#include "substitute.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpGroup;
using ops::OpKind;
using ops::TermRef;

namespace {

int rank_of(TermRef t) {
  return t->tensor_type().rank();
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
  // ...or the length of the one sequence, read at tap 0.
  ok_ = !n && !s.spec.has_n_steps && s.num_sequences() == 1 &&
        s.spec.sequence_taps[0] == ops::IntList{0};
}

void StepBatcher::read_state_outputs(EClassId scan) {
  scan_ = scan;
  for (std::size_t j = 0; j < s_.num_mitsot() + s_.num_sitsot(); ++j)
    if (s_.spec.keep.empty() || s_.spec.keep[j] == 0) state_output_.emplace(s_.body_output(j), j);
  kinds_.clear();
}

bool StepBatcher::is_state_slot(std::int64_t slot) const {
  return slot >= s_.mitsot_param(0, 0) && slot < s_.nonsequence_param(0);
}

Batch StepBatcher::classify(TermRef t) {
  if (auto it = kinds_.find(t); it != kinds_.end()) return it->second;
  const auto& free = t->free_nominals();
  const bool leaf = t->kind() == OpKind::Nominal || t->kind() == OpKind::Const;
  Batch b = Batch::No;
  if (state_output_.contains(t)) {
    b = Batch::PerStep;
  } else if (const bool state = std::ranges::any_of(free, [&](auto k) { return is_state_slot(k); });
             t->is_tuple() || (state && (state_output_.empty() || leaf))) {
    b = Batch::No;  // reads a state other than through its next value
  } else if (!state && (free.empty() || free.front() >= s_.nonsequence_param(0))) {
    b = (leaf || steps_) ? Batch::Invariant : Batch::No;
  } else if (t->kind() == OpKind::Nominal) {
    b = Batch::PerStep;
  } else {
    std::vector<Batch> kids;
    for (TermRef o : t->operands()) kids.push_back(classify(o));
    const bool all_ok = std::ranges::none_of(kids, [](Batch k) { return k == Batch::No; });
    const OpGroup group = t->info().group;
    if (!all_ok) {
      b = Batch::No;
    } else if (ops::is_elementwise(t->kind()) || group == OpGroup::Reduction ||
               group == OpGroup::Softmax) {
      b = Batch::PerStep;
    } else if (t->kind() == OpKind::Dot) {
      // x_t · W (W a vector or a matrix), or W · x_t (W a matrix, x_t a vector).
      const TermRef a = t->operand(0), w = t->operand(1);
      if (kids[0] == Batch::PerStep && kids[1] == Batch::Invariant && rank_of(a) >= 1 &&
          rank_of(w) <= 2)
        b = Batch::PerStep;
      else if (kids[0] == Batch::Invariant && kids[1] == Batch::PerStep && rank_of(a) == 2 &&
               rank_of(w) == 1)
        b = Batch::PerStep;
    }
  }
  kinds_.emplace(t, b);
  return b;
}

std::optional<EClassId> StepBatcher::window(std::int64_t slot) {
  const auto [i, tap] = seq_tap_[static_cast<std::size_t>(slot)];
  const EClassId seq = s_.operands[s_.sequence_operand(i)];
  if (!steps_) return seq;  // one sequence at tap 0: all of it
  const std::int64_t len = g_.data(seq).tensor_type().dims[0];
  if (tap == 0 && *steps_ == len) return seq;
  ops::Attrs a{
      {AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, tap}, {AttrKey::Stop, tap + *steps_}};
  return g_.add_op(OpKind::Slice, std::move(a), std::array{seq});
}

std::optional<EClassId> StepBatcher::add(TermRef t) {
  if (auto it = added_.find(t); it != added_.end()) return it->second;
  std::optional<EClassId> c;
  switch (classify(t)) {
    case Batch::No:
      return std::nullopt;
    case Batch::Invariant:
      c = instantiate(g_, t, invariant_args_);
      break;
    case Batch::PerStep:
      c = add_per_step(t);
      break;
  }
  if (c) added_.emplace(t, *c);
  return c;
}

std::optional<EClassId> StepBatcher::add_per_step(TermRef t) {
  if (auto it = state_output_.find(t); it != state_output_.end())
    return g_.add_op(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(it->second)}},
                     std::array{*scan_});
  if (t->kind() == OpKind::Nominal) return window(t->attrs().get<std::int64_t>(AttrKey::Slot));
  std::vector<EClassId> kids;
  for (TermRef o : t->operands()) {
    auto k = add(o);
    if (!k) return std::nullopt;
    kids.push_back(*k);
  }
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
  } else if (t->info().group == OpGroup::Reduction) {
    ops::IntList axes = attrs.get<ops::IntList>(AttrKey::Axis);
    for (auto& a : axes) ++a;
    attrs.set(AttrKey::Axis, axes);
  } else if (t->info().group == OpGroup::Softmax) {
    attrs.set(AttrKey::Axis, attrs.get<std::int64_t>(AttrKey::Axis) + 1);
  } else if (t->kind() == OpKind::Dot && classify(t->operand(0)) == Batch::Invariant) {
    // W · x_t for every t is xs · Wᵀ.
    auto wt = g_.add_op(OpKind::Transpose, {}, std::array{kids[0]});
    if (!wt) return std::nullopt;
    kids = {kids[1], *wt};
  }
  const auto c = g_.add_op(t->kind(), std::move(attrs), kids);
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
