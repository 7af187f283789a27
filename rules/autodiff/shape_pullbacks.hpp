// The pullback table's entries for shape, indexing and creation ops
// (pullback_table.hpp): each gives every operand's cotangent.
#pragma once

#include "rules/autodiff/pullback_table.hpp"

namespace eqsat::ops {

template <>
struct Pullback<OpKind::Reshape> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    return {mk(OpKind::Reshape, {g}, {{AttrKey::Shape, reshape_target(type_of(y->operand(0)))}})};
  }
};

template <>
struct Pullback<OpKind::Transpose> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    const auto& perm = y->attrs().get<IntList>(AttrKey::Perm);
    IntList inverse(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<std::int64_t>(i);
    return {pullback_terms::mk(OpKind::Transpose, {g}, {{AttrKey::Perm, inverse}})};
  }
};

template <>
struct Pullback<OpKind::ExpandDims> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    return {pullback_terms::mk(
        OpKind::Squeeze, {g},
        {{AttrKey::Axis, IntList{y->attrs().get<std::int64_t>(AttrKey::Axis)}}})};
  }
};

template <>
struct Pullback<OpKind::Squeeze> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    return {pullback_terms::restore_axes(g, y->attrs().get<IntList>(AttrKey::Axis))};
  }
};

template <>
struct Pullback<OpKind::BroadcastTo> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    return {unbroadcast(g, y->operand(0))};
  }
};

// y gives only its shape: no cotangent.
template <>
struct Pullback<OpKind::BroadcastLike> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    return {unbroadcast(g, y->operand(0), 0, y), nullptr};
  }
};

template <>
struct Pullback<OpKind::Flip> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    return {pullback_terms::mk(OpKind::Flip, {g},
                               {{AttrKey::Axis, y->attrs().get<IntList>(AttrKey::Axis)}})};
  }
};

// Operand i is rows [start, stop) of g along the axis: counted from the
// front while the lengths before it are known, from the back while those
// after it are (one operand of unknown length is fine); else cut at run
// time (concat_part).
template <>
struct Pullback<OpKind::Concat> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    const std::int64_t axis = y->attrs().get<std::int64_t>(AttrKey::Axis);
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
      TermRef xi = y->operand(i);
      if (before != kUnknownDim && len[i] != kUnknownDim) {
        sa.set(AttrKey::Start, before).set(AttrKey::Stop, before + len[i]);
      } else if (before != kUnknownDim && after != kUnknownDim) {
        sa.set(AttrKey::Start, before);
        if (after > 0) sa.set(AttrKey::Stop, -after);
      } else if (after != kUnknownDim && len[i] != kUnknownDim) {
        sa.set(AttrKey::Start, -(after + len[i]));
        if (after > 0) sa.set(AttrKey::Stop, -after);
      } else {
        out.push_back(is_float_term(xi) ? unbroadcast(concat_part(y, g, i), xi, type_of(xi).rank())
                                        : nullptr);
        continue;
      }
      out.push_back(is_float_term(xi)
                        ? unbroadcast(mk(OpKind::Slice, {g}, sa), xi, type_of(xi).rank())
                        : nullptr);
    }
    return out;
  }
};

template <>
struct Pullback<OpKind::Stack> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    const std::int64_t axis = y->attrs().get<std::int64_t>(AttrKey::Axis);
    std::vector<TermRef> out;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(y->arity()); ++i) {
      TermRef xi = y->operand(static_cast<std::size_t>(i));
      TermRef part = mk(OpKind::Squeeze,
                        {mk(OpKind::Slice, {g},
                            {{AttrKey::Axis, axis}, {AttrKey::Start, i}, {AttrKey::Stop, i + 1}})},
                        {{AttrKey::Axis, IntList{axis}}});
      out.push_back(is_float_term(xi) ? unbroadcast(part, xi, type_of(xi).rank()) : nullptr);
    }
    return out;
  }
};

// The cotangent brought back to `operand`, or none when it is not a float.
inline TermRef cotangent_for(TermRef c, TermRef operand) {
  return pullback_terms::is_float_term(operand) ? unbroadcast(c, operand) : nullptr;
}

// zeros of x's shape in the cotangent's dtype: where an indexing op's
// cotangent is written into.
inline TermRef zeros_for(TermRef x, TermRef g) {
  using namespace pullback_terms;
  return mk(OpKind::ZerosLike, {mk(OpKind::Cast, {x}, {{AttrKey::Dtype, type_of(g).dtype}})});
}

template <>
struct Pullback<OpKind::Index> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    TermRef x = y->operand(0);
    return {
        cotangent_for(pullback_terms::mk(OpKind::IncIndex, {zeros_for(x, g), y->operand(1), g}), x),
        nullptr};
  }
};

template <>
struct Pullback<OpKind::Slice> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    TermRef x = y->operand(0);
    return {cotangent_for(mk(OpKind::IncSlice, {zeros_for(x, g), g}, slice_attrs(y->attrs())), x)};
  }
};

// Cut back, or padded back, to x's rows.
template <>
struct Pullback<OpKind::ResizeRows> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    TermRef x = y->operand(0);
    const std::int64_t rows = type_of(x).dims[0];
    const TermRef n = rows == kUnknownDim ? mk(OpKind::Dim, {x}, {{AttrKey::Axis, std::int64_t{0}}})
                                          : Term::scalar(DType::I64, static_cast<double>(rows));
    return {cotangent_for(mk(OpKind::ResizeRows, {g, n}), x), nullptr};
  }
};

template <>
struct Pullback<OpKind::SetIndex> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    return {cotangent_for(mk(OpKind::SetIndex, {g, y->operand(1), lit(g, 0)}), y->operand(0)),
            nullptr, cotangent_for(mk(OpKind::Index, {g, y->operand(1)}), y->operand(2))};
  }
};

template <>
struct Pullback<OpKind::IncIndex> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    return {cotangent_for(g, y->operand(0)), nullptr,
            cotangent_for(mk(OpKind::Index, {g, y->operand(1)}), y->operand(2))};
  }
};

template <>
struct Pullback<OpKind::SetSlice> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    const Attrs sa = slice_attrs(y->attrs());
    return {cotangent_for(mk(OpKind::SetSlice, {g, lit(g, 0)}, sa), y->operand(0)),
            cotangent_for(mk(OpKind::Slice, {g}, sa), y->operand(1))};
  }
};

template <>
struct Pullback<OpKind::IncSlice> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    return {cotangent_for(g, y->operand(0)),
            cotangent_for(mk(OpKind::Slice, {g}, slice_attrs(y->attrs())), y->operand(1))};
  }
};

// full: every element is the fill value.
template <>
struct Pullback<OpKind::Full> {
  static std::vector<TermRef> cotangents(TermRef y, TermRef g) {
    using namespace pullback_terms;
    TermRef v = y->operand(0);
    if (!is_float_term(v)) return {nullptr};
    return {unbroadcast(mk(OpKind::Sum, {g}), v)};
  }
};

}  // namespace eqsat::ops
