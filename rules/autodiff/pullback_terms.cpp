#include "rules/autodiff/pullback_terms.hpp"

#include <fmt/format.h>

#include <numeric>
#include <utility>

namespace eqsat::ops::pullback_terms {

TermRef mk(OpKind k, std::vector<TermRef> xs, Attrs attrs) {
  return Term::make(k, std::move(attrs), std::move(xs));
}
TermRef lit(TermRef like, double v) {
  return Term::scalar(like->tensor_type().dtype, v);
}
const TensorType& type_of(TermRef t) {
  return t->tensor_type();
}
bool is_float_term(TermRef t) {
  return !t->is_tuple() && is_float(type_of(t).dtype);
}

TermRef restore_axes(TermRef g, const IntList& axes) {
  for (std::int64_t a : axes) g = mk(OpKind::ExpandDims, {g}, {{AttrKey::Axis, a}});
  return g;
}

TermRef broadcast_like(TermRef g, TermRef like) {
  const TensorType& t = type_of(like);
  if (type_of(g).dims == t.dims) return g;
  if (t.is_static()) return mk(OpKind::BroadcastTo, {g}, {{AttrKey::Shape, t.dims}});
  return mk(OpKind::Add, {g, mk(OpKind::ZerosLike,
                                {mk(OpKind::Cast, {like}, {{AttrKey::Dtype, type_of(g).dtype}})})});
}

TermRef keepdims_cotangent(TermRef y, TermRef g) {
  const auto& axes = y->attrs().get<IntList>(AttrKey::Axis);
  return y->attrs().get<bool>(AttrKey::Keepdims) ? g : restore_axes(g, axes);
}
TermRef keepdims_value(TermRef y) {
  return keepdims_cotangent(y, y);
}

TermRef reduced_count(TermRef x, const IntList& axes, DType dtype) {
  const TensorType& t = type_of(x);
  bool known = true;
  double n = 1;
  for (std::int64_t a : axes) {
    if (t.dims[a] == kUnknownDim)
      known = false;
    else
      n *= static_cast<double>(t.dims[a]);
  }
  if (known) return Term::scalar(dtype, n);
  TermRef count = nullptr;
  for (std::int64_t a : axes) {
    TermRef d = mk(OpKind::Dim, {x}, {{AttrKey::Axis, a}});
    count = count ? mk(OpKind::Mul, {count, d}) : d;
  }
  return mk(OpKind::Cast, {count}, {{AttrKey::Dtype, dtype}});
}

TermRef swap_last(TermRef x) {
  IntList perm(type_of(x).dims.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return mk(OpKind::Transpose, {x}, {{AttrKey::Perm, perm}});
}

IntList reshape_target(const TensorType& t) {
  IntList shape = t.dims;
  int unknown = 0;
  for (auto& d : shape)
    if (d == kUnknownDim) {
      d = -1;
      ++unknown;
    }
  if (unknown > 1)
    throw PullbackError(fmt::format(
        "grad: cannot reshape a cotangent back to shape {} with several unknown dimensions",
        dims_to_string(t.dims)));
  return shape;
}

// The axis moved first, the
// rows before it dropped (flip, keep the rest with `resize_rows`, flip
// back) and its own `dim` rows kept.
TermRef concat_part(TermRef y, TermRef g, std::size_t i) {
  const std::int64_t axis = y->attrs().get<std::int64_t>(AttrKey::Axis);
  IntList perm{axis};
  for (std::int64_t a = 0; a < type_of(g).rank(); ++a)
    if (a != axis) perm.push_back(a);
  IntList inverse(perm.size());
  for (std::size_t a = 0; a < perm.size(); ++a) inverse[perm[a]] = static_cast<std::int64_t>(a);
  auto dim = [](TermRef x, std::int64_t a) { return mk(OpKind::Dim, {x}, {{AttrKey::Axis, a}}); };
  auto flip0 = [](TermRef x) { return mk(OpKind::Flip, {x}, {{AttrKey::Axis, IntList{0}}}); };
  TermRef rows = axis == 0 ? g : mk(OpKind::Transpose, {g}, {{AttrKey::Perm, perm}});
  if (i > 0) {
    TermRef before = dim(y->operand(0), axis);
    for (std::size_t j = 1; j < i; ++j)
      before = mk(OpKind::Add, {before, dim(y->operand(j), axis)});
    const TermRef rest = mk(OpKind::Sub, {dim(rows, 0), before});
    rows = flip0(mk(OpKind::ResizeRows, {flip0(rows), rest}));
  }
  rows = mk(OpKind::ResizeRows, {rows, dim(y->operand(i), axis)});
  return axis == 0 ? rows : mk(OpKind::Transpose, {rows}, {{AttrKey::Perm, inverse}});
}

Attrs slice_attrs(const Attrs& a) {
  Attrs out;
  for (AttrKey k : {AttrKey::Axis, AttrKey::Start, AttrKey::Stop, AttrKey::Step})
    if (const AttrValue* v = a.find(k)) out.set(k, *v);
  return out;
}

// The product of the other elements (PyTensor's ProdWithoutZeros): with p the product of the
// nonzero elements and z_i the number of zeros among the others, it is
// p / x_i when z_i = 0 (p at a zero x_i), 0 when z_i >= 2, and when z_i = 1
// (p / x_i) * s_i, where s_i, the sum of the others' zero entries, is 0 but
// has derivative 1 there, so second derivatives are right too. The
// division reads a zero-free copy of x: no inf or NaN hides anywhere.
TermRef prod_of_others(TermRef x, const IntList& axes) {
  const Attrs reduce{{AttrKey::Axis, axes}, {AttrKey::Keepdims, true}};
  TermRef zero = lit(x, 0), one = lit(x, 1);
  TermRef is_zero = mk(OpKind::Eq, {x, zero});
  TermRef nonzero = mk(OpKind::Where, {is_zero, one, x});
  TermRef others = mk(OpKind::Div, {mk(OpKind::Prod, {nonzero}, reduce), nonzero});
  TermRef zcount = mk(OpKind::Cast, {is_zero}, {{AttrKey::Dtype, DType::I64}});
  TermRef zothers = mk(OpKind::Sub, {mk(OpKind::Sum, {zcount}, reduce), zcount});
  TermRef zx = mk(OpKind::Where, {is_zero, x, zero});
  TermRef zsum = mk(OpKind::Sub, {mk(OpKind::Sum, {zx}, reduce), zx});
  auto count_is = [&](std::int64_t n) {
    return mk(OpKind::Eq, {zothers, Term::scalar(DType::I64, static_cast<double>(n))});
  };
  return mk(OpKind::Where,
            {count_is(0), others,
             mk(OpKind::Where, {count_is(1), mk(OpKind::Mul, {others, zsum}), zero})});
}

std::int64_t unbroadcast_axes_fixed(TermRef y, TermRef x) {
  for (TermRef o : y->operands())
    if (o != x && !o->is_tuple() && type_of(o).rank() != 0) return 0;
  return type_of(x).rank();
}

}  // namespace eqsat::ops::pullback_terms
