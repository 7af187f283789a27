// The pullback table's entries for reductions, softmax and dot
// (pullback_table.hpp).
#pragma once

#include "rules/autodiff/pullback_table.hpp"

namespace eqsat::ops {

// The reductions: x's cotangent.

template <>
struct Pullback<OpKind::Sum> {
  static TermRef cotangent(const Reduced& r) {
    return pullback_terms::broadcast_like(r.g_kept, r.x);
  }
};

template <>
struct Pullback<OpKind::Mean> {
  static TermRef cotangent(const Reduced& r) {
    using namespace pullback_terms;
    return broadcast_like(
        mk(OpKind::Div, {r.g_kept, reduced_count(r.x, r.axes, type_of(r.g).dtype)}), r.x);
  }
};

// exp(x - lse) <= 1: no overflow.
template <>
struct Pullback<OpKind::Logsumexp> {
  static TermRef cotangent(const Reduced& r) {
    using pullback_terms::mk;
    return mk(OpKind::Mul, {r.g_kept, mk(OpKind::Exp, {mk(OpKind::Sub, {r.x, r.y_kept})})});
  }
};

template <>
struct Pullback<OpKind::Prod> {
  static TermRef cotangent(const Reduced& r) {
    using namespace pullback_terms;
    return mk(OpKind::Mul, {r.g_kept, prod_of_others(r.x, r.axes)});
  }
};

// max and min: the cotangent shared equally by the extreme elements.
struct ExtremePullback {
  static TermRef cotangent(const Reduced& r) {
    using namespace pullback_terms;
    TermRef mask =
        mk(OpKind::Cast, {mk(OpKind::Eq, {r.x, r.y_kept})}, {{AttrKey::Dtype, type_of(r.g).dtype}});
    TermRef ties = mk(OpKind::Sum, {mask}, {{AttrKey::Axis, r.axes}, {AttrKey::Keepdims, true}});
    return mk(OpKind::Mul, {r.g_kept, mk(OpKind::Div, {mask, ties})});
  }
};
template <>
struct Pullback<OpKind::Max> : ExtremePullback {};
template <>
struct Pullback<OpKind::Min> : ExtremePullback {};

// The softmax axis as a keepdims reduction's attributes.
inline Attrs softmax_axis_kept(TermRef y) {
  return {{AttrKey::Axis, IntList{y->attrs().get<std::int64_t>(AttrKey::Axis)}},
          {AttrKey::Keepdims, true}};
}

template <>
struct Pullback<OpKind::Softmax> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    if (!is_float_term(y->operand(0))) return {nullptr};
    TermRef inner = mk(OpKind::Sum, {mk(OpKind::Mul, {g, y})}, softmax_axis_kept(y));
    return {mk(OpKind::Mul, {y, mk(OpKind::Sub, {g, inner})})};
  }
};

// g - softmax(x) * sum(g); softmax(x) is bounded.
template <>
struct Pullback<OpKind::LogSoftmax> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    TermRef x = y->operand(0);
    if (!is_float_term(x)) return {nullptr};
    const Attrs axis = softmax_axis_kept(y);
    TermRef p =
        mk(OpKind::Softmax, {x}, {{AttrKey::Axis, y->attrs().get<std::int64_t>(AttrKey::Axis)}});
    return {mk(OpKind::Sub, {g, mk(OpKind::Mul, {p, mk(OpKind::Sum, {g}, axis)})})};
  }
};

// A vector operand is made a matrix (a row for a, a column for b), the
// matrix rule applied, and the added axis removed again.
template <>
struct Pullback<OpKind::Dot> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
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
};

}  // namespace eqsat::ops
