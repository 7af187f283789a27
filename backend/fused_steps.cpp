// The run-time of fused groups (Function's Fused and FusedReduce steps):
// their one pass planned from the leaves' shapes at run time, kept while
// the shapes stay the same (a loop's steps), and the op-by-op fallback.
#include "function.hpp"

#include "kernel_support.hpp"
#include "kernels.hpp"
#include "runtime_error.hpp"

#include "ops/slice.hpp"

namespace eqsat::backend::detail {

using ops::Array;
using ops::Dims;

void Function::run_members(Instruction& in) {
  for (Instruction& member : in.members) {
    try {
      execute(member);
    } catch (const RuntimeError& e) {
      context_->fail_at(member.term, e.what());
    }
  }
  for (std::size_t m = 0; m + 1 < in.members.size(); ++m)
    context_->pool.give(std::move(slots_[in.members[m].out]));
}

// Binds the operands of a Fused or FusedReduce step and returns `plan`'s
// outcome for their shapes: made anew only when a shape differs from the
// last plan's (a loop's steps see the same shapes at every step).
bool Function::plan_once(Instruction& in, bool (Function::*plan)(Instruction&)) {
  for (std::size_t k = 0; k < in.operands.size(); ++k) in.args[k] = &slots_[in.operands[k]];
  bool same = in.planned;
  for (std::size_t k = 0; same && k < in.args.size(); ++k)
    same = in.planned_for[k] == in.args[k]->shape();
  if (same) return in.plan_fits;
  in.planned_for.resize(in.args.size());
  for (std::size_t k = 0; k < in.args.size(); ++k) in.planned_for[k] = in.args[k]->shape();
  in.planned = true;
  in.plan_fits = (this->*plan)(in);
  return in.plan_fits;
}

// A Fused step's one pass (in.shape, in.layout, in.leaf_windows), as
// plan_once keeps it: false when it must run op by op.
bool Function::plan_fused_step(Instruction& in) {
  return plan_once(in, &Function::plan_fused_layout);
}

// plan_fused_step's plan, made anew.
bool Function::plan_fused_layout(Instruction& in) {
  in.leaf_windows.clear();
  for (std::size_t k = 0; k < in.windows.size(); ++k) {
    if (!in.windows[k]) continue;
    if (in.leaf_windows.empty()) in.leaf_windows.resize(in.operands.size());
    const Dims& d = in.args[k]->shape();
    if (d.empty()) return false;  // the slice reports it
    const ops::Attrs& a = in.windows[k]->attrs();
    ops::SliceBounds b;
    if (a.has(ops::AttrKey::Start)) b.start = a.get<std::int64_t>(ops::AttrKey::Start);
    if (a.has(ops::AttrKey::Stop)) b.stop = a.get<std::int64_t>(ops::AttrKey::Stop);
    const ops::ResolvedSlice r = ops::resolve_slice(b, d.back());
    in.leaf_windows[k] = {r.start, r.length, d.back()};
  }
  return plan_fused(in.args, in.shape, in.layout, 0, in.leaf_windows);
}

void Function::run_fused(Instruction& in) {
  if (!plan_fused_step(in)) return run_members(in);
  const ops::DType dtype = in.term->tensor_type().dtype;
  Array& dst = slots_[in.out];
  for (int k : in.in_place) {
    const Array& a = *in.args[k];
    if (a.unique() && a.dtype() == dtype && a.shape() == in.shape) {
      dst = a;
      detail::run_fused(in.program, in.args, in.layout, in.compute, dst);
      return;
    }
  }
  dst = context_->pool.take(dtype, in.shape);
  detail::run_fused(in.program, in.args, in.layout, in.compute, dst);
}

// A FusedReduce step's pass (in.shape: the reduction's result, in.layout:
// rows of the reduced length), made anew: false when it must run op by op.
bool Function::plan_reduction_layout(Instruction& in) {
  // The reduced length: the trailing axes from the first reduced one.
  const auto& axes = in.term->attrs().get<ops::IntList>(ops::AttrKey::Axis);
  Dims full;
  FusedLayout probe;
  if (!plan_fused(in.args, full, probe) ||
      static_cast<std::int64_t>(full.size()) != in.term->operand(0)->tensor_type().rank())
    return false;
  const Dims reduced(full.begin() + axes.front(), full.end());
  const std::int64_t len = num_elements(reduced);
  if (len == 0 || !plan_fused(in.args, in.shape, in.layout, len)) return false;
  in.shape.resize(axes.front());
  if (in.term->attrs().get<bool>(ops::AttrKey::Keepdims)) in.shape.resize(full.size(), 1);
  return true;
}

void Function::run_fused_reduction(Instruction& in) {
  if (!plan_once(in, &Function::plan_reduction_layout)) return run_members(in);
  Array& dst = slots_[in.out];
  dst = context_->pool.take(in.term->tensor_type().dtype, in.shape);
  detail::run_fused_reduction(in.term->kind(), in.program, in.args, in.layout, dst);
}

}  // namespace eqsat::backend::detail
