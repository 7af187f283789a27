#include "scalar_eval.hpp"

#include "backend/scalar_body.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace eqsat::rules {

using ops::DType;
using ops::OpKind;

namespace {

// The value of `v` as C++ type T, as a cast to T's dtype would give.
template <class T>
T as(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (!std::isfinite(v) || std::abs(v) >= 9.2e18) return std::numeric_limits<T>::min();
    // Truncate, then wrap to T's width.
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<std::int64_t>(std::trunc(v))));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

template <class T>
std::optional<double> unary(OpKind kind, T x) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (!std::is_same_v<T, bool>) {
      switch (kind) {
        case OpKind::Neg:
          return static_cast<double>(wrap_sub(T{0}, x));
        case OpKind::Abs:
          return static_cast<double>(x < 0 ? wrap_sub(T{0}, x) : x);
        case OpKind::Sign:
          return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
        case OpKind::Square:
          return static_cast<double>(wrap_mul(x, x));
        default:
          return std::nullopt;
      }
    }
    return std::nullopt;
  } else {
    // The kernels' own scalar code: a folded value has the executor's bits.
    return static_cast<double>(backend::detail::apply_unary<T>(kind, x));
  }
}

template <class T>
std::optional<double> arith(OpKind kind, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (kind) {
      case OpKind::Maximum:
        return a || b;
      case OpKind::Minimum:
        return a && b;
      default:
        return std::nullopt;
    }
  } else if constexpr (std::is_integral_v<T>) {
    switch (kind) {
      case OpKind::Add:
        return static_cast<double>(wrap_add(a, b));
      case OpKind::Sub:
        return static_cast<double>(wrap_sub(a, b));
      case OpKind::Mul:
        return static_cast<double>(wrap_mul(a, b));
      case OpKind::Maximum:
        return static_cast<double>(std::max(a, b));
      case OpKind::Minimum:
        return static_cast<double>(std::min(a, b));
      case OpKind::Pow: {
        if (b < 0) return std::nullopt;
        T r = 1;
        for (T base = a, e = b; e > 0; e >>= 1, base = wrap_mul(base, base))
          if (e & 1) r = wrap_mul(r, base);
        return static_cast<double>(r);
      }
      default:
        return std::nullopt;
    }
  } else {
    return static_cast<double>(backend::detail::apply_binary<T>(kind, a, b));
  }
}

template <class T>
std::optional<double> compare(OpKind kind, T a, T b) {
  switch (kind) {
    case OpKind::Eq:
      return a == b;
    case OpKind::Ne:
      return a != b;
    case OpKind::Lt:
      return a < b;
    case OpKind::Le:
      return a <= b;
    case OpKind::Gt:
      return a > b;
    case OpKind::Ge:
      return a >= b;
    default:
      return std::nullopt;
  }
}

// `r`, unless it is an integer a double does not hold exactly (2^53 and
// beyond): the caller then knows no value rather than a rounded one.
std::optional<double> exact(std::optional<double> r, DType dtype) {
  if (r && ops::is_integer(dtype) && std::abs(*r) >= 0x1p53) return std::nullopt;
  return r;
}

}  // namespace

double convert_scalar(double value, DType dtype) {
  return ops::visit_dtype(
      dtype, [&]<class T>(std::type_identity<T>) { return static_cast<double>(as<T>(value)); });
}

std::optional<double> eval_scalar(OpKind kind, std::span<const TypedScalar> xs, DType result) {
  const ops::OpGroup group = ops::op_info(kind).group;
  if (kind == OpKind::Cast && xs.size() == 1) return convert_scalar(xs[0].value, result);
  if (kind == OpKind::LogicalNot && xs.size() == 1) return xs[0].value == 0 ? 1.0 : 0.0;
  if (group == ops::OpGroup::Unary && xs.size() == 1) {
    // Same-dtype ops compute in their dtype, float functions in the float result.
    const double x = convert_scalar(xs[0].value, result);
    auto r = ops::visit_dtype(
        result, [&]<class T>(std::type_identity<T>) { return unary<T>(kind, as<T>(x)); });
    if (r) *r = convert_scalar(*r, result);
    return exact(r, result);
  }
  if (kind == OpKind::Where && xs.size() == 3)
    return convert_scalar(xs[0].value != 0 ? xs[1].value : xs[2].value, result);
  if (group != ops::OpGroup::Binary || xs.size() != 2) return std::nullopt;
  if (kind == OpKind::LogicalAnd) return (xs[0].value != 0 && xs[1].value != 0) ? 1.0 : 0.0;
  if (kind == OpKind::LogicalOr) return (xs[0].value != 0 || xs[1].value != 0) ? 1.0 : 0.0;
  // Comparisons compare in the promoted dtype; the rest compute in the result's.
  const DType work = ops::is_comparison(kind) ? ops::promote(xs[0].dtype, xs[1].dtype) : result;
  auto r = ops::visit_dtype(work, [&]<class T>(std::type_identity<T>) {
    const T a = as<T>(convert_scalar(xs[0].value, work));
    const T b = as<T>(convert_scalar(xs[1].value, work));
    return ops::is_comparison(kind) ? compare<T>(kind, a, b) : arith<T>(kind, a, b);
  });
  if (r) *r = convert_scalar(*r, result);
  return exact(r, result);
}

}  // namespace eqsat::rules
