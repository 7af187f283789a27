// The math of every elementwise op, written once. UnaryMath<K> maps a block
// of one dtype to a block of the same dtype; BinaryMath<K> gives the scalar
// function of two operands and, where Eigen vectorizes it, its array form.
// The broadcast, fused-block and scalar paths of elementwise.cpp (and so
// constant folding and ScalarBody loops) all read these tables through
// ops::dispatch_op: an op of the Unary or Binary group without its entry
// here does not compile.
#pragma once

#include "eigen_maps.hpp"
#include "vector_loops.hpp"
#include "vector_math.hpp"

#include "ops/op_dispatch.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace eqsat::backend::detail {

using ops::OpKind;

inline constexpr std::int64_t kBlock = 512;

template <class T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T>;

// -|x|, and max(a, 0) + b (NaN a gives NaN), for the loops of the vector
// level in use (vector_loops.hpp).
struct NegatedMagnitude {
  template <class T>
  static T scalar(T x) {
    return -std::abs(x);
  }
};
struct PositivePartPlus {
  template <class T>
  static T scalar(T a, T b) {
    return (a < T(0) ? T(0) : a) + b;
  }
};

// softplus(x) = max(x, 0) + log1p(exp(-|x|)): never overflows, and exact
// for very negative x (where it is exp(x)). Its elementwise parts take the
// vector level's loops (Eigen's, for SSE2, were a fifth of its time).
template <class T>
void softplus(const T* x, T* y, std::int64_t n) {
  alignas(64) T t[kBlock];
  for (std::int64_t s = 0; s < n; s += kBlock) {
    const std::int64_t m = std::min(kBlock, n - s);
    unary_loop<NegatedMagnitude>(x + s, t, m);
    vmath::exp(t, t, m);
    vmath::log1p(t, t, m);
    binary_loop<PositivePartPlus>(x + s, false, t, false, y + s, m);
  }
}

// log(1 − eˣ) (PyTensor's log1mexp): log(−expm1 x) near 0, log1p(−eˣ)
// below −ln 2, where each is accurate. Over a block both forms come from
// the vector functions and each element takes its own: four vector calls
// cost less than two calls of the C library (y may be x).
template <class T>
void log1mexp(const T* x, T* y, std::int64_t n) {
  alignas(64) T near[kBlock], far[kBlock];
  for (std::int64_t s = 0; s < n; s += kBlock) {
    const std::int64_t m = std::min(kBlock, n - s);
    vmath::expm1(x + s, near, m);
    Out<T>(near, m) = -In<T>(near, m);
    vmath::log(near, near, m);
    vmath::exp(x + s, far, m);
    Out<T>(far, m) = -In<T>(far, m);
    vmath::log1p(far, far, m);
    for (std::int64_t i = 0; i < m; ++i)
      y[s + i] = x[s + i] > T(-0.6931471805599453) ? near[i] : far[i];
  }
}

// log(eᵃ + eᵇ) = max + log1p(e^−|a−b|), NaN propagated by the max. Equal
// operands give max + log1p(1) = a + ln 2 (log1p(1) is ln 2 rounded); for
// equal infinities a − b is NaN, which the min with 0 (that prefers the
// number) turns into 0 too. Over a block, e^−|a−b| and its log1p come from
// the vector functions and the rest are Eigen expressions with no select,
// a constant operand read once, so that all of it vectorizes (a select or
// a run-time stride per element did not). out may be a or b.
template <class T>
void logaddexp(const T* a, bool a_const, const T* b, bool b_const, T* out, std::int64_t n) {
  auto run = [&]<bool CA, bool CB>() {
    alignas(64) T t[kBlock];
    for (std::int64_t s = 0; s < n; s += kBlock) {
      const std::int64_t m = std::min(kBlock, n - s);
      const auto operand = [m]<bool C>(const T* p) {
        if constexpr (C)
          return Vec<T>::Constant(m, *p);
        else
          return In<T>(p, m);
      };
      const auto x = operand.template operator()<CA>(CA ? a : a + s);
      const auto y = operand.template operator()<CB>(CB ? b : b + s);
      Out<T>(t, m) =
          (-(x - y).abs())
              .binaryExpr(Vec<T>::Zero(m),
                          Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNumbers>());
      vmath::exp(t, t, m);
      vmath::log1p(t, t, m);
      Out<T>(out + s, m) =
          x.binaryExpr(y, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>()) +
          In<T>(t, m);
    }
  };
  if (a_const && b_const) return run.template operator()<true, true>();
  if (a_const) return run.template operator()<true, false>();
  if (b_const) return run.template operator()<false, true>();
  run.template operator()<false, false>();
}

// Unary ops: `block(x, y, n)` for the dtypes T the op has a kernel for
// (`kFloatOnly`: f32 and f64; else every numeric dtype; logical_not: bool).
template <OpKind K>
struct UnaryMath;

// An op whose block is an Eigen array expression `f(x)`.
template <class F, bool FloatOnly>
struct EigenUnary {
  static constexpr bool kFloatOnly = FloatOnly;
  template <class T>
  static void block(const T* x, T* y, std::int64_t n) {
    Out<T>(y, n) = F{}(In<T>(x, n));
  }
};
#define EQSAT_EIGEN_UNARY(id, float_only, expr)           \
  struct id##Expr {                                       \
    auto operator()(const auto& a) const { return expr; } \
  };                                                      \
  template <>                                             \
  struct UnaryMath<OpKind::id> : EigenUnary<id##Expr, float_only> {}
// An op whose block is one of vector_math's vectorized functions.
#define EQSAT_VECTOR_UNARY(id, fn)                        \
  template <>                                             \
  struct UnaryMath<OpKind::id> {                          \
    static constexpr bool kFloatOnly = true;              \
    template <class T>                                    \
    static void block(const T* x, T* y, std::int64_t n) { \
      vmath::fn(x, y, n);                                 \
    }                                                     \
  }

EQSAT_EIGEN_UNARY(Neg, false, -a);
EQSAT_EIGEN_UNARY(Abs, false, a.abs());
EQSAT_EIGEN_UNARY(Square, false, a.square());
EQSAT_EIGEN_UNARY(Sqrt, true, a.sqrt());
EQSAT_EIGEN_UNARY(Reciprocal, true, a.inverse());
EQSAT_EIGEN_UNARY(Floor, true, a.floor());
EQSAT_EIGEN_UNARY(Ceil, true, a.ceil());
EQSAT_VECTOR_UNARY(Exp, exp);
EQSAT_VECTOR_UNARY(Log, log);
EQSAT_VECTOR_UNARY(Expm1, expm1);
EQSAT_VECTOR_UNARY(Log1p, log1p);
EQSAT_VECTOR_UNARY(Sin, sin);
EQSAT_VECTOR_UNARY(Cos, cos);
EQSAT_VECTOR_UNARY(Tanh, tanh);
EQSAT_VECTOR_UNARY(Erf, erf);
EQSAT_VECTOR_UNARY(Sigmoid, sigmoid);
#undef EQSAT_EIGEN_UNARY
#undef EQSAT_VECTOR_UNARY

template <>
struct UnaryMath<OpKind::Sign> {
  static constexpr bool kFloatOnly = false;
  // NaN stays NaN, as in NumPy.
  template <class T>
  static void block(const T* x, T* y, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] > T(0) ? T(1) : x[i] < T(0) ? T(-1) : x[i];
  }
};
template <>
struct UnaryMath<OpKind::Softplus> {
  static constexpr bool kFloatOnly = true;
  template <class T>
  static void block(const T* x, T* y, std::int64_t n) {
    softplus(x, y, n);
  }
};
template <>
struct UnaryMath<OpKind::Log1mexp> {
  static constexpr bool kFloatOnly = true;
  template <class T>
  static void block(const T* x, T* y, std::int64_t n) {
    log1mexp(x, y, n);
  }
};
// On bool, and on the 0/1 values a fused expression holds booleans as.
template <>
struct UnaryMath<OpKind::LogicalNot> {
  static constexpr bool kFloatOnly = false;
  static constexpr bool kOnBool = true;
  template <class T>
  static void block(const T* x, T* y, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(x[i] == T(0));
  }
};
// A conversion, not a map within one dtype: elementwise.cpp converts.
template <>
struct UnaryMath<OpKind::Cast> {
  static constexpr bool kConverts = true;
};

// Binary ops: `scalar(a, b)` for every dtype the op takes (a bool for
// comparisons and logical ops, whose operands may be 0/1 values of T), and
// `array(x, y)` where an Eigen expression computes the same bits faster.
template <OpKind K>
struct BinaryMath;

#define EQSAT_ARITH(id, op)                                            \
  template <>                                                          \
  struct BinaryMath<OpKind::id> {                                      \
    template <class T>                                                 \
    static T scalar(T a, T b) {                                        \
      return static_cast<T>(a op b);                                   \
    }                                                                  \
    static auto array(const auto& x, const auto& y) { return x op y; } \
  }
EQSAT_ARITH(Add, +);
EQSAT_ARITH(Sub, -);
EQSAT_ARITH(Mul, *);
EQSAT_ARITH(Div, /);
#undef EQSAT_ARITH

// maximum and minimum propagate NaN (NumPy's), scalar and array alike; on
// bool they are `or` and `and`.
#define EQSAT_EXTREMUM(id, functor, on_bool)                                         \
  template <>                                                                        \
  struct BinaryMath<OpKind::id> {                                                    \
    static constexpr bool kOnBool = true;                                            \
    template <class T>                                                               \
    static T scalar(T a, T b) {                                                      \
      if constexpr (std::is_same_v<T, bool>)                                         \
        return a on_bool b;                                                          \
      else                                                                           \
        return Eigen::internal::functor<T, T, Eigen::PropagateNaN>()(a, b);          \
    }                                                                                \
    static auto array(const auto& x, const auto& y) {                                \
      using T = typename std::remove_cvref_t<decltype(x)>::Scalar;                   \
      return x.binaryExpr(y, Eigen::internal::functor<T, T, Eigen::PropagateNaN>()); \
    }                                                                                \
  }
EQSAT_EXTREMUM(Maximum, scalar_max_op, ||);
EQSAT_EXTREMUM(Minimum, scalar_min_op, &&);
#undef EQSAT_EXTREMUM

// Integers: repeated squaring, wrapping around as multiplication does
// (elementwise.cpp refuses negative exponents first).
template <>
struct BinaryMath<OpKind::Pow> {
  template <class T>
  static T scalar(T base, T exponent) {
    if constexpr (kIsFloat<T>) {
      return std::pow(base, exponent);
    } else {
      using U = std::make_unsigned_t<T>;
      U result = 1, b = static_cast<U>(base);
      for (auto e = static_cast<U>(exponent); e; e >>= 1) {
        if (e & 1u) result *= b;
        b *= b;
      }
      return static_cast<T>(result);
    }
  }
};
template <>
struct BinaryMath<OpKind::Logaddexp> {
  static constexpr bool kFloatOnly = true;
  template <class T>
  static T scalar(T a, T b) {
    T out;
    logaddexp(&a, true, &b, true, &out, 1);
    return out;
  }
  template <class T>
  static void block(const T* a, bool a_const, const T* b, bool b_const, T* out, std::int64_t n) {
    logaddexp(a, a_const, b, b_const, out, n);
  }
};
template <>
struct BinaryMath<OpKind::Hypot> {
  static constexpr bool kFloatOnly = true;
  template <class T>
  static T scalar(T a, T b) {
    return std::hypot(a, b);
  }
};

#define EQSAT_PREDICATE(id, expr)         \
  template <>                             \
  struct BinaryMath<OpKind::id> {         \
    static constexpr bool kOnBool = true; \
    template <class T>                    \
    static bool scalar(T a, T b) {        \
      return expr;                        \
    }                                     \
  }
EQSAT_PREDICATE(Eq, a == b);
EQSAT_PREDICATE(Ne, a != b);
EQSAT_PREDICATE(Lt, a < b);
EQSAT_PREDICATE(Le, a <= b);
EQSAT_PREDICATE(Gt, a > b);
EQSAT_PREDICATE(Ge, a >= b);
EQSAT_PREDICATE(LogicalAnd, a != T(0) && b != T(0));
EQSAT_PREDICATE(LogicalOr, a != T(0) || b != T(0));
#undef EQSAT_PREDICATE

// Whether op M has a kernel for dtype T: bool only where M says so
// (`kOnBool`), integers unless M is `kFloatOnly`.
template <class M, class T>
constexpr bool has_kernel() {
  if constexpr (std::is_same_v<T, bool>) return requires {
      M::kOnBool;
    };
  else if constexpr (requires { M::kFloatOnly; })
    return !M::kFloatOnly || kIsFloat<T>;
  else
    return true;
}

}  // namespace eqsat::backend::detail
