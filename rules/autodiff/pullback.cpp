#include "rules/autodiff/pullback.hpp"

#include "support/internal_error.hpp"

#include <fmt/format.h>

#include <limits>
#include <numeric>
#include <stdexcept>

namespace eqsat::ops {

namespace {

TermRef mk(OpKind k, std::vector<TermRef> xs, Attrs attrs = {}) {
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

// `g` (the result of reducing over `axes` without keepdims) with those axes
// put back as length 1.
TermRef restore_axes(TermRef g, const IntList& axes) {
  for (std::int64_t a : axes) g = mk(OpKind::ExpandDims, {g}, {{AttrKey::Axis, a}});
  return g;
}

// `g` broadcast to `like`'s shape (and dtype kept).
TermRef broadcast_like(TermRef g, TermRef like) {
  const TensorType& t = type_of(like);
  if (type_of(g).dims == t.dims) return g;
  if (t.is_static()) return mk(OpKind::BroadcastTo, {g}, {{AttrKey::Shape, t.dims}});
  return mk(OpKind::Add, {g, mk(OpKind::ZerosLike,
                                {mk(OpKind::Cast, {like}, {{AttrKey::Dtype, type_of(g).dtype}})})});
}

// The reduction's axes and the cotangent with them restored (keepdims form).
TermRef keepdims_cotangent(TermRef y, TermRef g) {
  const auto& axes = y->attrs().get<IntList>(AttrKey::Axis);
  return y->attrs().get<bool>(AttrKey::Keepdims) ? g : restore_axes(g, axes);
}
TermRef keepdims_value(TermRef y) {
  return keepdims_cotangent(y, y);
}

// The number of elements a reduction of `x` over `axes` combines, as a
// float scalar of `dtype`.
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

// A reshape target for `t`: its dims with at most one unknown written -1.
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

// Operand i's part of the cotangent `g` of `y = concat(...)` when the
// lengths around it are known only at run time: the axis moved first, the
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

std::vector<TermRef> dot_pullback(TermRef y, TermRef g) {
  TermRef a = y->operand(0), b = y->operand(1);
  const bool a1 = type_of(a).rank() == 1, b1 = type_of(b).rank() == 1;
  TermRef A = a1 ? mk(OpKind::ExpandDims, {a}, {{AttrKey::Axis, std::int64_t{0}}}) : a;
  TermRef B = b1 ? mk(OpKind::ExpandDims, {b}, {{AttrKey::Axis, std::int64_t{1}}}) : b;
  TermRef G = g;
  if (b1) G = mk(OpKind::ExpandDims, {G}, {{AttrKey::Axis, std::int64_t{type_of(G).rank()}}});
  if (a1) G = mk(OpKind::ExpandDims, {G}, {{AttrKey::Axis, std::int64_t{type_of(G).rank() - 1}}});
  std::vector<TermRef> out(2, nullptr);
  if (is_float_term(a)) {
    TermRef ga = unbroadcast(mk(OpKind::Dot, {G, swap_last(B)}), A, 2);
    if (a1) ga = mk(OpKind::Squeeze, {ga}, {{AttrKey::Axis, IntList{0}}});
    out[0] = ga;
  }
  if (is_float_term(b)) {
    TermRef gb = unbroadcast(mk(OpKind::Dot, {swap_last(A), G}), B, 2);
    if (b1) gb = mk(OpKind::Squeeze, {gb}, {{AttrKey::Axis, IntList{1}}});
    out[1] = gb;
  }
  return out;
}

// d prod(x) / d x_i, the product of the other elements, without dividing
// by a zero (PyTensor's ProdWithoutZeros): with p the product of the
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

std::vector<TermRef> reduction_pullback(TermRef y, TermRef g) {
  TermRef x = y->operand(0);
  if (!is_float_term(x)) return {nullptr};
  const auto& axes = y->attrs().get<IntList>(AttrKey::Axis);
  TermRef gk = keepdims_cotangent(y, g);
  TermRef yk = keepdims_value(y);
  switch (y->kind()) {
    case OpKind::Sum:
      return {broadcast_like(gk, x)};
    case OpKind::Mean:
      return {broadcast_like(mk(OpKind::Div, {gk, reduced_count(x, axes, type_of(g).dtype)}), x)};
    case OpKind::Logsumexp:  // exp(x - lse) <= 1: no overflow
      return {mk(OpKind::Mul, {gk, mk(OpKind::Exp, {mk(OpKind::Sub, {x, yk})})})};
    case OpKind::Prod:
      return {mk(OpKind::Mul, {gk, prod_of_others(x, axes)})};
    case OpKind::Max:
    case OpKind::Min: {  // the cotangent shared equally by the extreme elements
      TermRef mask =
          mk(OpKind::Cast, {mk(OpKind::Eq, {x, yk})}, {{AttrKey::Dtype, type_of(g).dtype}});
      TermRef ties = mk(OpKind::Sum, {mask}, {{AttrKey::Axis, axes}, {AttrKey::Keepdims, true}});
      return {mk(OpKind::Mul, {gk, mk(OpKind::Div, {mask, ties})})};
    }
    default:
      EQSAT_ASSERT(false) << y->info().name << " is Smooth but has no pullback";
  }
}

// How many axes of operand `x` of elementwise `y` no other operand can
// have broadcast: all of them when each other operand is `x` itself or a
// scalar (unbroadcast then needs no run-time decision), else none.
std::int64_t unbroadcast_axes_fixed(TermRef y, TermRef x) {
  for (TermRef o : y->operands())
    if (o != x && !o->is_tuple() && type_of(o).rank() != 0) return 0;
  return type_of(x).rank();
}

std::vector<TermRef> binary_pullback(TermRef y, TermRef g) {
  TermRef a = y->operand(0), b = y->operand(1);
  TermRef ga = nullptr, gb = nullptr;
  switch (y->kind()) {
    case OpKind::Add:
      ga = gb = g;
      break;
    case OpKind::Sub:
      ga = g;
      gb = mk(OpKind::Neg, {g});
      break;
    case OpKind::Mul:
      ga = mk(OpKind::Mul, {g, b});
      gb = mk(OpKind::Mul, {g, a});
      break;
    case OpKind::Div:
      ga = mk(OpKind::Div, {g, b});
      gb = mk(OpKind::Neg, {mk(OpKind::Div, {mk(OpKind::Mul, {g, y}), b})});
      break;
    case OpKind::Pow:
      ga = mk(OpKind::Mul,
              {g, mk(OpKind::Mul, {b, mk(OpKind::Pow, {a, mk(OpKind::Sub, {b, lit(g, 1)})})})});
      // d(aᵇ)/db = aᵇ log a, taken as 0 at a = 0 (PyTensor's convention;
      // the formula gives 0 · −∞ = NaN)
      gb = mk(OpKind::Where, {mk(OpKind::Eq, {a, lit(a, 0)}), lit(g, 0),
                              mk(OpKind::Mul, {g, mk(OpKind::Mul, {y, mk(OpKind::Log, {a})})})});
      break;
    case OpKind::Logaddexp:  // d/da = exp(a − y) <= 1: no overflow
      ga = mk(OpKind::Mul, {g, mk(OpKind::Exp, {mk(OpKind::Sub, {a, y})})});
      gb = mk(OpKind::Mul, {g, mk(OpKind::Exp, {mk(OpKind::Sub, {b, y})})});
      break;
    case OpKind::Hypot:  // d/da √(a² + b²) = a / y (NaN at a = b = 0, as PyTensor)
      ga = mk(OpKind::Mul, {g, mk(OpKind::Div, {a, y})});
      gb = mk(OpKind::Mul, {g, mk(OpKind::Div, {b, y})});
      break;
    case OpKind::Maximum:
    case OpKind::Minimum: {  // a tie goes to the first operand
      const bool max = y->kind() == OpKind::Maximum;
      TermRef first = mk(max ? OpKind::Ge : OpKind::Le, {a, b});
      ga = mk(OpKind::Where, {first, g, lit(g, 0)});
      gb = mk(OpKind::Where, {first, lit(g, 0), g});
      break;
    }
    default:
      EQSAT_ASSERT(false) << y->info().name << " is Smooth but has no pullback";
  }
  return {is_float_term(a) ? unbroadcast(ga, a, unbroadcast_axes_fixed(y, a)) : nullptr,
          is_float_term(b) ? unbroadcast(gb, b, unbroadcast_axes_fixed(y, b)) : nullptr};
}

TermRef unary_cotangent(TermRef y, TermRef g) {
  TermRef x = y->operand(0);
  switch (y->kind()) {
    case OpKind::Neg:
      return mk(OpKind::Neg, {g});
    case OpKind::Abs:
      return mk(OpKind::Mul, {g, mk(OpKind::Sign, {x})});
    case OpKind::Square:
      return mk(OpKind::Mul, {g, mk(OpKind::Mul, {x, lit(g, 2)})});
    case OpKind::Exp:
      return mk(OpKind::Mul, {g, y});
    case OpKind::Expm1:
      return mk(OpKind::Mul, {g, mk(OpKind::Add, {y, lit(g, 1)})});
    case OpKind::Log:
      return mk(OpKind::Div, {g, x});
    case OpKind::Log1p:
      return mk(OpKind::Div, {g, mk(OpKind::Add, {x, lit(g, 1)})});
    case OpKind::Sqrt:
      return mk(OpKind::Div, {g, mk(OpKind::Mul, {y, lit(g, 2)})});
    case OpKind::Reciprocal:
      return mk(OpKind::Neg, {mk(OpKind::Mul, {g, mk(OpKind::Square, {y})})});
    case OpKind::Sin:
      return mk(OpKind::Mul, {g, mk(OpKind::Cos, {x})});
    case OpKind::Cos:
      return mk(OpKind::Neg, {mk(OpKind::Mul, {g, mk(OpKind::Sin, {x})})});
    case OpKind::Tanh:
      return mk(OpKind::Mul, {g, mk(OpKind::Sub, {lit(g, 1), mk(OpKind::Square, {y})})});
    case OpKind::Sigmoid:
      return mk(OpKind::Mul, {g, mk(OpKind::Mul, {y, mk(OpKind::Sub, {lit(g, 1), y})})});
    case OpKind::Softplus:
      return mk(OpKind::Mul, {g, mk(OpKind::Sigmoid, {x})});
    case OpKind::Log1mexp:  // d/dx log(1 − eˣ) = −1 / expm1(−x), −∞ at x = ±0 (PyTensor)
      return mk(
          OpKind::Mul,
          {g, mk(OpKind::Where,
                 {mk(OpKind::Eq, {x, lit(x, 0)}), lit(g, -std::numeric_limits<double>::infinity()),
                  mk(OpKind::Neg,
                     {mk(OpKind::Reciprocal, {mk(OpKind::Expm1, {mk(OpKind::Neg, {x})})})})})});
    case OpKind::Cast:
      return g;
    default:
      EQSAT_ASSERT(false) << y->info().name << " is Smooth but has no pullback";
  }
}

std::vector<TermRef> shape_pullback(TermRef y, TermRef g) {
  TermRef x = y->operand(0);
  const Attrs& at = y->attrs();
  switch (y->kind()) {
    case OpKind::Reshape:
      return {mk(OpKind::Reshape, {g}, {{AttrKey::Shape, reshape_target(type_of(x))}})};
    case OpKind::Transpose: {
      const auto& perm = at.get<IntList>(AttrKey::Perm);
      IntList inverse(perm.size());
      for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<std::int64_t>(i);
      return {mk(OpKind::Transpose, {g}, {{AttrKey::Perm, inverse}})};
    }
    case OpKind::ExpandDims:
      return {mk(OpKind::Squeeze, {g},
                 {{AttrKey::Axis, IntList{at.get<std::int64_t>(AttrKey::Axis)}}})};
    case OpKind::Squeeze:
      return {restore_axes(g, at.get<IntList>(AttrKey::Axis))};
    case OpKind::BroadcastTo:
      return {unbroadcast(g, x)};
    case OpKind::Flip:
      return {mk(OpKind::Flip, {g}, {{AttrKey::Axis, at.get<IntList>(AttrKey::Axis)}})};
    case OpKind::Concat: {
      // Operand i is rows [start, stop) of g along the axis: counted from
      // the front while the lengths before it are known, from the back
      // while those after it are (one operand of unknown length is fine).
      const std::int64_t axis = at.get<std::int64_t>(AttrKey::Axis);
      const std::size_t n = y->arity();
      std::vector<std::int64_t> len(n);
      for (std::size_t i = 0; i < n; ++i) len[i] = type_of(y->operand(i)).dims[axis];
      auto sum = [&](std::size_t from, std::size_t to) -> std::int64_t {
        std::int64_t total = 0;
        for (std::size_t i = from; i < to; ++i) {
          if (len[i] == kUnknownDim) return kUnknownDim;
          total += len[i];
        }
        return total;
      };
      std::vector<TermRef> out;
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t before = sum(0, i), after = sum(i + 1, n);
        Attrs sa{{AttrKey::Axis, axis}};
        if (before != kUnknownDim && len[i] != kUnknownDim) {
          sa.set(AttrKey::Start, before).set(AttrKey::Stop, before + len[i]);
        } else if (before != kUnknownDim && after != kUnknownDim) {
          sa.set(AttrKey::Start, before);
          if (after > 0) sa.set(AttrKey::Stop, -after);
        } else if (after != kUnknownDim && len[i] != kUnknownDim) {
          sa.set(AttrKey::Start, -(after + len[i]));
          if (after > 0) sa.set(AttrKey::Stop, -after);
        } else {
          TermRef xi = y->operand(i);
          out.push_back(is_float_term(xi) ? unbroadcast(concat_part(y, g, i), xi, type_of(xi).rank())
                                          : nullptr);
          continue;
        }
        TermRef xi = y->operand(i);
        out.push_back(is_float_term(xi)
                          ? unbroadcast(mk(OpKind::Slice, {g}, sa), xi, type_of(xi).rank())
                          : nullptr);
      }
      return out;
    }
    case OpKind::Stack: {
      const std::int64_t axis = at.get<std::int64_t>(AttrKey::Axis);
      std::vector<TermRef> out;
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(y->arity()); ++i) {
        TermRef xi = y->operand(static_cast<std::size_t>(i));
        TermRef part =
            mk(OpKind::Squeeze,
               {mk(OpKind::Slice, {g},
                   {{AttrKey::Axis, axis}, {AttrKey::Start, i}, {AttrKey::Stop, i + 1}})},
               {{AttrKey::Axis, IntList{axis}}});
        out.push_back(is_float_term(xi) ? unbroadcast(part, xi, type_of(xi).rank()) : nullptr);
      }
      return out;
    }
    default:
      EQSAT_ASSERT(false) << y->info().name << " is Smooth but has no pullback";
  }
}

std::vector<TermRef> indexing_pullback(TermRef y, TermRef g) {
  TermRef x = y->operand(0);
  const Attrs sa = slice_attrs(y->attrs());
  auto fit = [](TermRef c, TermRef operand) {
    return is_float_term(operand) ? unbroadcast(c, operand) : nullptr;
  };
  switch (y->kind()) {
    case OpKind::Index: {
      TermRef zeros =
          mk(OpKind::ZerosLike, {mk(OpKind::Cast, {x}, {{AttrKey::Dtype, type_of(g).dtype}})});
      return {fit(mk(OpKind::IncIndex, {zeros, y->operand(1), g}), x), nullptr};
    }
    case OpKind::Slice: {
      TermRef zeros =
          mk(OpKind::ZerosLike, {mk(OpKind::Cast, {x}, {{AttrKey::Dtype, type_of(g).dtype}})});
      return {fit(mk(OpKind::IncSlice, {zeros, g}, sa), x)};
    }
    case OpKind::ResizeRows: {  // cut back, or padded back, to x's rows
      const std::int64_t rows = type_of(x).dims[0];
      const TermRef n = rows == kUnknownDim
                            ? mk(OpKind::Dim, {x}, {{AttrKey::Axis, std::int64_t{0}}})
                            : Term::scalar(DType::I64, static_cast<double>(rows));
      return {fit(mk(OpKind::ResizeRows, {g, n}), x), nullptr};
    }
    case OpKind::SetIndex:
      return {fit(mk(OpKind::SetIndex, {g, y->operand(1), lit(g, 0)}), x), nullptr,
              fit(mk(OpKind::Index, {g, y->operand(1)}), y->operand(2))};
    case OpKind::IncIndex:
      return {fit(g, x), nullptr, fit(mk(OpKind::Index, {g, y->operand(1)}), y->operand(2))};
    case OpKind::SetSlice:
      return {fit(mk(OpKind::SetSlice, {g, lit(g, 0)}, sa), x),
              fit(mk(OpKind::Slice, {g}, sa), y->operand(1))};
    case OpKind::IncSlice:
      return {fit(g, x), fit(mk(OpKind::Slice, {g}, sa), y->operand(1))};
    default:
      EQSAT_ASSERT(false) << y->info().name << " is Smooth but has no pullback";
  }
}

}  // namespace

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

TermRef unbroadcast(TermRef g, TermRef operand, std::int64_t fixed_axes) {
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
  for (int i = 0; i < target.rank() - fixed_axes; ++i)
    if (target.dims[i] == kUnknownDim && type_of(g).dims[i] != 1)
      g = unbroadcast_at_run_time(g, operand, i);
  if (type_of(g).dtype != target.dtype) g = mk(OpKind::Cast, {g}, {{AttrKey::Dtype, target.dtype}});
  return g;
}

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
  switch (y->info().group) {
    case OpGroup::Unary: {
      TermRef x = y->operand(0);
      if (!is_float_term(x)) return {nullptr};
      return {unbroadcast(unary_cotangent(y, gy), x, type_of(x).rank())};
    }
    case OpGroup::Binary:
      return binary_pullback(y, gy);
    case OpGroup::Select: {
      TermRef a = y->operand(1), b = y->operand(2), c = y->operand(0);
      TermRef zero = lit(gy, 0);
      return {nullptr,
              is_float_term(a)
                  ? unbroadcast(mk(OpKind::Where, {c, gy, zero}), a, unbroadcast_axes_fixed(y, a))
                  : nullptr,
              is_float_term(b)
                  ? unbroadcast(mk(OpKind::Where, {c, zero, gy}), b, unbroadcast_axes_fixed(y, b))
                  : nullptr};
    }
    case OpGroup::Reduction:
      return reduction_pullback(y, gy);
    case OpGroup::Softmax: {
      TermRef x = y->operand(0);
      if (!is_float_term(x)) return {nullptr};
      const Attrs axis{{AttrKey::Axis, IntList{y->attrs().get<std::int64_t>(AttrKey::Axis)}},
                       {AttrKey::Keepdims, true}};
      if (kind == OpKind::Softmax) {
        TermRef inner = mk(OpKind::Sum, {mk(OpKind::Mul, {gy, y})}, axis);
        return {mk(OpKind::Mul, {y, mk(OpKind::Sub, {gy, inner})})};
      }
      // log_softmax: g - softmax(x) * sum(g); softmax(x) is bounded.
      TermRef p =
          mk(OpKind::Softmax, {x}, {{AttrKey::Axis, y->attrs().get<std::int64_t>(AttrKey::Axis)}});
      return {mk(OpKind::Sub, {gy, mk(OpKind::Mul, {p, mk(OpKind::Sum, {gy}, axis)})})};
    }
    case OpGroup::LinAlg:
      return dot_pullback(y, gy);
    case OpGroup::Shape:
      return shape_pullback(y, gy);
    case OpGroup::Indexing:
      return indexing_pullback(y, gy);
    case OpGroup::Creation: {  // full: every element is the fill value
      TermRef v = y->operand(0);
      if (!is_float_term(v)) return {nullptr};
      return {unbroadcast(mk(OpKind::Sum, {gy}), v)};
    }
    case OpGroup::Leaf:
    case OpGroup::Control:
    case OpGroup::Gradient:
      break;
  }
  EQSAT_ASSERT(false) << y->info().name << " is Smooth but has no pullback";
  return {};
}

}  // namespace eqsat::ops
