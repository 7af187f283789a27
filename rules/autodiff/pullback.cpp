#include "rules/autodiff/pullback.hpp"

#include "rules/autodiff/elementwise_pullbacks.hpp"
#include "rules/autodiff/pullback_table.hpp"
#include "rules/autodiff/reduction_pullbacks.hpp"
#include "rules/autodiff/shape_pullbacks.hpp"

#include "rules/tensor/term_dim_symbols.hpp"

#include "ops/op_dispatch.hpp"
#include "support/internal_error.hpp"

#include <fmt/format.h>

#include <numeric>

namespace eqsat::ops {

using namespace pullback_terms;

namespace {

// `g` (of `operand`'s rank) reduced along `axis`, where static types do not
// say whether `operand` was broadcast, to the length that axis has when the
// graph runs: summed where it is 1, kept where it is not. resize_rows cuts
// the length on the first axis, so `axis` goes there and back.
TermRef unbroadcast_at_run_time(TermRef g, TermRef operand, std::int64_t axis) {
  IntList perm(static_cast<std::size_t>(type_of(g).rank()));
  std::iota(perm.begin(), perm.end(), std::int64_t{0});
  std::swap(perm[0], perm[static_cast<std::size_t>(axis)]);
  auto to_front = [&](TermRef t) {  // the swap is its own inverse
    return axis == 0 ? t : mk(OpKind::Transpose, {t}, {{AttrKey::Perm, perm}});
  };
  TermRef n = mk(OpKind::Dim, {operand}, {{AttrKey::Axis, axis}});
  TermRef broadcast = mk(OpKind::Eq, {n, lit(n, 1)});
  TermRef summed =
      mk(OpKind::Sum, {g}, {{AttrKey::Axis, IntList{axis}}, {AttrKey::Keepdims, true}});
  TermRef picked = mk(OpKind::Where, {broadcast, summed, g});
  return to_front(mk(OpKind::ResizeRows, {to_front(picked), n}));
}

}  // namespace

TermRef unbroadcast(TermRef g, TermRef operand, std::int64_t fixed_axes, TermRef result) {
  const TensorType& target = type_of(operand);
  const TensorType& t = type_of(g);
  const int lead = t.rank() - target.rank();
  IntList inner, leading;
  for (int i = 0; i < lead; ++i) leading.push_back(i);
  for (int i = 0; i < target.rank(); ++i)
    if (target.dims[i] == 1 && t.dims[lead + i] != 1) inner.push_back(lead + i);
  if (!inner.empty()) g = mk(OpKind::Sum, {g}, {{AttrKey::Axis, inner}, {AttrKey::Keepdims, true}});
  if (!leading.empty()) g = mk(OpKind::Sum, {g}, {{AttrKey::Axis, leading}});
  // An axis of unknown length may have been 1 and broadcast: decided when
  // the graph runs (docs/architecture.md decision 13: only what is proven).
  // Not where the operand's length is provably the result's (dim symbols).
  const int result_lead = result ? type_of(result).rank() - target.rank() : 0;
  for (int i = 0; i < target.rank() - fixed_axes; ++i)
    if (target.dims[i] == kUnknownDim && type_of(g).dims[i] != 1 &&
        !(result && rules::same_length(operand, i, result, result_lead + i)))
      g = unbroadcast_at_run_time(g, operand, i);
  if (type_of(g).dtype != target.dtype) g = mk(OpKind::Cast, {g}, {{AttrKey::Dtype, target.dtype}});
  return g;
}

namespace {

// The pullback of Smooth op K from its table entry (pullback_table.hpp),
// with what its group shares: elementwise operands that are not floats get
// no cotangent and the others have their broadcasting undone; a
// reduction's entry gets the reduced axes restored.
template <OpKind K>
std::vector<TermRef> smooth_pullback(TermRef y, TermRef g) {
  if constexpr (group_of(K) == OpGroup::Unary) {
    TermRef x = y->operand(0);
    if (!is_float_term(x)) return {nullptr};
    return {unbroadcast(Pullback<K>::cotangent(y, x, g), x, type_of(x).rank())};
  } else if constexpr (group_of(K) == OpGroup::Binary) {
    TermRef a = y->operand(0), b = y->operand(1);
    const Cotangents2 c = Pullback<K>::cotangents(y, a, b, g);
    return {is_float_term(a) ? unbroadcast(c.a, a, unbroadcast_axes_fixed(y, a), y) : nullptr,
            is_float_term(b) ? unbroadcast(c.b, b, unbroadcast_axes_fixed(y, b), y) : nullptr};
  } else if constexpr (group_of(K) == OpGroup::Reduction) {
    TermRef x = y->operand(0);
    if (!is_float_term(x)) return {nullptr};
    const auto& axes = y->attrs().get<IntList>(AttrKey::Axis);
    TermRef g_kept = keepdims_cotangent(y, g);
    return {Pullback<K>::cotangent(Reduced{y, x, g, axes, g_kept, keepdims_value(y)})};
  } else {
    return Pullback<K>::cotangents(y, g);
  }
}

}  // namespace

std::vector<TermRef> pullback(TermRef y, TermRef gy) {
  const OpKind kind = y->kind();
  const Differentiability d = differentiability(kind);
  if (d == Differentiability::Unsupported) {
    if (kind == OpKind::Scan || (kind == OpKind::Get && y->operand(0)->kind() == OpKind::Scan))
      throw PullbackError("grad: differentiating through scan is not supported yet");
    throw PullbackError(fmt::format("grad: cannot differentiate through {}", op_name(kind)));
  }
  if (d == Differentiability::Zero || !is_float_term(y))
    return std::vector<TermRef>(y->arity(), nullptr);
  return dispatch_op(kind, [&](auto k) -> std::vector<TermRef> {
    constexpr OpKind K = decltype(k)::value;
    if constexpr (differentiability_of(K) == Differentiability::Smooth) {
      return smooth_pullback<K>(y, gy);
    } else {
      EQSAT_ASSERT(false) << op_name(K) << " is not Smooth: handled above";
      return {};
    }
  });
}

}  // namespace eqsat::ops
