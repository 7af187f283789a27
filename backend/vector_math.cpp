#include "vector_math.hpp"

#include "sleef_entry_points.hpp"
#include "vector_apply.hpp"
#include "vector_level.hpp"
#include "vector_math_own.hpp"
#include "vector_sigmoid.hpp"
#include "vector_tanh.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace eqsat::backend::vmath {

namespace {

#ifdef EQSAT_VMATH_SLEEF

// fn_level(x, y, n): SLEEF's routine `sleef` over x[0..n), through the
// level's apply (vector_apply.hpp).
#define EQSAT_VMATH_APPLY(fn, level, T, sleef)                               \
  EQSAT_TARGET_##level void fn##_##level(const T* x, T* y, std::int64_t n) { \
    level::apply<sleef>(x, y, n);                                            \
  }
#define EQSAT_VMATH_SSE2(fn)                                  \
  EQSAT_VMATH_APPLY(fn, sse2, double, Sleef_##fn##d2_u10sse2) \
  EQSAT_VMATH_APPLY(fn, sse2, float, Sleef_##fn##f4_u10sse2)
#define EQSAT_VMATH_AVX2_F64(fn) EQSAT_VMATH_APPLY(fn, avx2, double, Sleef_##fn##d4_u10avx2)
#define EQSAT_VMATH_AVX2_F32(fn) EQSAT_VMATH_APPLY(fn, avx2, float, Sleef_##fn##f8_u10avx2)
#define EQSAT_VMATH_AVX512_F64(fn) EQSAT_VMATH_APPLY(fn, avx512, double, Sleef_##fn##d8_u10avx512f)
#define EQSAT_VMATH_AVX512_F32(fn) EQSAT_VMATH_APPLY(fn, avx512, float, Sleef_##fn##f16_u10avx512f)
// At AVX2 and AVX-512, f64 exp, log, log1p, sin, cos and tanh are our own
// (vector_math_own.hpp).
#define EQSAT_VMATH_OWN_F64(fn, level)                            \
  void fn##_##level(const double* x, double* y, std::int64_t n) { \
    level::fn(x, y, n);                                           \
  }
#define EQSAT_VMATH_SLEEF_F64(X) X(expm1) X(erf)
// At AVX2 and AVX-512, f32 tanh is our own (vector_tanh.hpp).
#define EQSAT_VMATH_SLEEF_F32(X) X(exp) X(log) X(sin) X(cos) X(expm1) X(log1p) X(erf)
#define EQSAT_VMATH_OWN_AVX2_F64(fn) EQSAT_VMATH_OWN_F64(fn, avx2)
#define EQSAT_VMATH_OWN_AVX512_F64(fn) EQSAT_VMATH_OWN_F64(fn, avx512)
EQSAT_VMATH_FUNCTIONS(EQSAT_VMATH_SSE2)
EQSAT_VMATH_SLEEF_F32(EQSAT_VMATH_AVX2_F32)
EQSAT_VMATH_SLEEF_F64(EQSAT_VMATH_AVX2_F64)
EQSAT_VMATH_OWN_AVX2_F64(exp)
EQSAT_VMATH_OWN_AVX2_F64(sin)
EQSAT_VMATH_OWN_AVX2_F64(cos)
EQSAT_VMATH_OWN_AVX2_F64(tanh)
EQSAT_VMATH_OWN_AVX2_F64(log)
EQSAT_VMATH_OWN_AVX2_F64(log1p)
EQSAT_VMATH_SLEEF_F32(EQSAT_VMATH_AVX512_F32)
EQSAT_VMATH_SLEEF_F64(EQSAT_VMATH_AVX512_F64)
EQSAT_VMATH_OWN_AVX512_F64(exp)
EQSAT_VMATH_OWN_AVX512_F64(sin)
EQSAT_VMATH_OWN_AVX512_F64(cos)
EQSAT_VMATH_OWN_AVX512_F64(tanh)
EQSAT_VMATH_OWN_AVX512_F64(log)
EQSAT_VMATH_OWN_AVX512_F64(log1p)
#undef EQSAT_VMATH_SSE2
#undef EQSAT_VMATH_AVX2_F64
#undef EQSAT_VMATH_AVX2_F32
#undef EQSAT_VMATH_AVX512_F64
#undef EQSAT_VMATH_AVX512_F32
#undef EQSAT_VMATH_OWN_F64
#undef EQSAT_VMATH_OWN_AVX2_F64
#undef EQSAT_VMATH_OWN_AVX512_F64
#undef EQSAT_VMATH_SLEEF_F64
#undef EQSAT_VMATH_SLEEF_F32
#undef EQSAT_VMATH_APPLY

// Each level computes the same expressions; Clang would otherwise contract
// a * b + c into one FMA where the level has it, changing the last bit.
#ifdef __clang__
#define EQSAT_NO_CONTRACT _Pragma("clang fp contract(off)")
#else
#define EQSAT_NO_CONTRACT
#endif

// t = exp(-|x|) <= 1, then 1 / (1 + t) for x >= 0 and t / (1 + t) below
// (no overflow, subnormal results for x < -708); 1 + t is carried as the
// exact sum s + e (|t| <= 1), and num / (s + e) as q (1 - e / s), so the
// result is within 1 ulp of the quotient of the exp computed: 2 ulp below 0,
// where exp's own ulp passes through it. The loops vectorize for the level.
#define EQSAT_VMATH_SIGMOID(level)                                              \
  template <class T>                                                            \
  EQSAT_TARGET_##level void sigmoid_##level(const T* x, T* y, std::int64_t n) { \
    constexpr std::int64_t kBlock = 256;                                        \
    alignas(64) T t[kBlock];                                                    \
    for (std::int64_t b = 0; b < n; b += kBlock) {                              \
      const std::int64_t m = std::min(kBlock, n - b);                           \
      for (std::int64_t i = 0; i < m; ++i) t[i] = -std::abs(x[b + i]);          \
      exp_##level(t, t, m);                                                     \
      for (std::int64_t i = 0; i < m; ++i) {                                    \
        EQSAT_NO_CONTRACT                                                       \
        const T s = T(1) + t[i];                                                \
        const T e = (T(1) - s) + t[i];                                          \
        const T q = (x[b + i] >= T(0) ? T(1) : t[i]) / s;                       \
        y[b + i] = std::isnan(x[b + i]) ? x[b + i] : q - q * (e / s);           \
      }                                                                         \
    }                                                                           \
  }
EQSAT_VMATH_SIGMOID(sse2)
EQSAT_VMATH_SIGMOID(avx2)
EQSAT_VMATH_SIGMOID(avx512)
#undef EQSAT_VMATH_SIGMOID

// fn_dispatch(x, y, n): fn for the level in use.
#define EQSAT_VMATH_DISPATCH(fn)                         \
  template <class T>                                     \
  void fn##_dispatch(const T* x, T* y, std::int64_t n) { \
    switch (vector_level()) {                            \
      case VectorLevel::Avx512:                          \
        return fn##_avx512(x, y, n);                     \
      case VectorLevel::Avx2:                            \
        return fn##_avx2(x, y, n);                       \
      case VectorLevel::Sse2:                            \
        return fn##_sse2(x, y, n);                       \
    }                                                    \
  }
EQSAT_VMATH_FUNCTIONS(EQSAT_VMATH_DISPATCH)
EQSAT_VMATH_DISPATCH(sigmoid)
#undef EQSAT_VMATH_DISPATCH

// f32 tanh and sigmoid below AVX2 (above, ours: vector_tanh.hpp,
// vector_sigmoid.hpp).
void tanh_f32_below_avx2(const float* x, float* y, std::int64_t n) {
  tanh_sse2(x, y, n);
}

void sigmoid_f32_below_avx2(const float* x, float* y, std::int64_t n) {
  sigmoid_sse2(x, y, n);
}

#else  // the C library, one element at a time

#define EQSAT_VMATH_SCALAR(fn)                                 \
  template <class T>                                           \
  void fn##_dispatch(const T* x, T* y, std::int64_t n) {       \
    for (std::int64_t i = 0; i < n; ++i) y[i] = std::fn(x[i]); \
  }
EQSAT_VMATH_FUNCTIONS(EQSAT_VMATH_SCALAR)
#undef EQSAT_VMATH_SCALAR

// As above, one element at a time.
template <class T>
void sigmoid_dispatch(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const T t = std::exp(-std::abs(x[i]));
    const T s = T(1) + t;
    const T e = (T(1) - s) + t;
    const T q = (x[i] >= T(0) ? T(1) : t) / s;
    y[i] = std::isnan(x[i]) ? x[i] : q - q * (e / s);
  }
}

void tanh_f32_below_avx2(const float* x, float* y, std::int64_t n) {
  tanh_dispatch(x, y, n);
}

void sigmoid_f32_below_avx2(const float* x, float* y, std::int64_t n) {
  sigmoid_dispatch(x, y, n);
}

#endif

// True when an element of x[0..n) is above `huge`, or subnormal (nonzero,
// below the smallest normal in magnitude): the elements the C library
// fixes up after SLEEF. Over 16-byte vectors with an integer mask or-ed
// in (a count in T was an addition chain, in order, longer than SLEEF's
// routine itself).
template <class T>
bool any_huge_or_subnormal(const T* x, std::int64_t n, T huge) {
  using I = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  typedef T V __attribute__((vector_size(16)));
  typedef I M __attribute__((vector_size(16)));
  constexpr std::int64_t kLanes = 16 / sizeof(T);
  const T tiny = std::numeric_limits<T>::min();
  M hit = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    V v;
    std::memcpy(&v, x + i, sizeof v);
    const V a = v < T(0) ? -v : v;
    hit |= (v > huge) | ((a < tiny) & (a > T(0)));
  }
  bool any = false;
  for (std::int64_t j = 0; j < kLanes; ++j) any = any || hit[j] != 0;
  for (; i < n; ++i) {
    const T a = std::abs(x[i]);
    any = any || x[i] > huge || (a < tiny && a > T(0));
  }
  return any;
}

// SLEEF's log1p overflows to inf above about 1e307 (f64) or 1e38 (f32),
// where log1p(x) is log(x) to the last bit: such arguments (and +inf) take
// the C library's log1p; and it gives 0 for a subnormal x, where log1p(x)
// is x to the last bit: those give x. Element by element (block by block,
// noted before the vector routine writes: y may be x), so an element's
// result never depends on its neighbours. A first pass without calls asks
// whether a block has any such argument.
template <class T>
void log1p_typed(const T* x, T* y, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  const T huge = std::numeric_limits<T>::max() / T(1024);
  const T tiny = std::numeric_limits<T>::min();
  T fixed[kBlock];
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t m = std::min(kBlock, n - b);
    const bool any = any_huge_or_subnormal(x + b, m, huge);
    if (any)
      for (std::int64_t i = 0; i < m; ++i) {
        const T v = x[b + i];
        const bool subnormal = v != T(0) && std::abs(v) < tiny;
        fixed[i] = v > huge ? std::log1p(v) : subnormal ? v : T(0);
      }
    log1p_dispatch(x + b, y + b, m);
    if (any)
      for (std::int64_t i = 0; i < m; ++i)
        if (fixed[i] != T(0)) y[b + i] = fixed[i];
  }
}

// SLEEF's erf of a subnormal argument is up to 1.2 ulp off; there erf(x)
// is 2x/√π to the last bit, computed in double (block by block, before
// SLEEF writes: y may be x). A first pass asks whether a block has one.
template <class T>
void erf_typed(const T* x, T* y, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  const T tiny = std::numeric_limits<T>::min();
  T fixed[kBlock];
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t m = std::min(kBlock, n - b);
    const bool any = any_huge_or_subnormal(x + b, m, std::numeric_limits<T>::infinity());
    if (any)
      for (std::int64_t i = 0; i < m; ++i) {
        const T v = x[b + i];
        fixed[i] = v != T(0) && std::abs(v) < tiny
                       ? static_cast<T>(static_cast<double>(v) * 1.1283791670955126)
                       : T(0);
      }
    erf_dispatch(x + b, y + b, m);
    if (any)
      for (std::int64_t i = 0; i < m; ++i)
        if (fixed[i] != T(0)) y[b + i] = fixed[i];
  }
}

// SLEEF's f64 exp overflows to inf from x = 709.782711150 on, where
// exp(x) is below the largest double up to 709.782712893: at the SSE2
// level (AVX2 and AVX-512 run our own exp there, vector_math_own.hpp),
// such arguments take the C library's exp (block by block, before SLEEF
// writes: y may be x).
void exp_f64(const double* x, double* y, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  double fixed[kBlock];
  const bool sleef_exp = vector_level() == VectorLevel::Sse2;
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t m = std::min(kBlock, n - b);
    bool near = false;
    if (sleef_exp)
      for (std::int64_t i = 0; i < m; ++i) {
        const double v = x[b + i];
        fixed[i] = v > 709.78 && v < 709.79 ? std::exp(v) : 0.0;
        near |= fixed[i] != 0.0;
      }
    exp_dispatch(x + b, y + b, m);
    if (near)
      for (std::int64_t i = 0; i < m; ++i)
        if (fixed[i] != 0.0) y[b + i] = fixed[i];
  }
}

}  // namespace

#define EQSAT_VMATH_DEFINE(name)                          \
  void name(const double* x, double* y, std::int64_t n) { \
    name##_dispatch(x, y, n);                             \
  }                                                       \
  void name(const float* x, float* y, std::int64_t n) {   \
    name##_dispatch(x, y, n);                             \
  }
EQSAT_VMATH_DEFINE(log)
EQSAT_VMATH_DEFINE(sin)
EQSAT_VMATH_DEFINE(cos)
EQSAT_VMATH_DEFINE(expm1)
#undef EQSAT_VMATH_DEFINE

void exp(const double* x, double* y, std::int64_t n) {
  exp_f64(x, y, n);
}

void exp(const float* x, float* y, std::int64_t n) {
  exp_dispatch(x, y, n);
}

void tanh(const double* x, double* y, std::int64_t n) {
  tanh_dispatch(x, y, n);
}

// f32 at AVX-512 and AVX2: ours, in f32 arithmetic (vector_tanh.hpp).
void tanh(const float* x, float* y, std::int64_t n) {
#ifdef __x86_64__
  if (vector_level() == VectorLevel::Avx512) return tanh_f32_avx512(x, y, n);
  if (vector_level() == VectorLevel::Avx2) return tanh_f32_avx2(x, y, n);
#endif
  tanh_f32_below_avx2(x, y, n);
}

void sigmoid(const double* x, double* y, std::int64_t n) {
  sigmoid_dispatch(x, y, n);
}

// f32 at AVX-512 and AVX2: ours, in f32 arithmetic (vector_sigmoid.hpp).
void sigmoid(const float* x, float* y, std::int64_t n) {
#ifdef __x86_64__
  if (vector_level() == VectorLevel::Avx512) return sigmoid_f32_avx512(x, y, n);
  if (vector_level() == VectorLevel::Avx2) return sigmoid_f32_avx2(x, y, n);
#endif
  sigmoid_f32_below_avx2(x, y, n);
}

void sincos(const double* x, double* s, double* c, std::int64_t n) {
#ifdef EQSAT_VMATH_SLEEF
  if (vector_level() == VectorLevel::Avx512) return avx512::sincos(x, s, c, n);
  if (vector_level() == VectorLevel::Avx2) return avx2::sincos(x, s, c, n);
#endif
  sin_dispatch(x, s, n);
  cos_dispatch(x, c, n);
}

void sincos(const float* x, float* s, float* c, std::int64_t n) {
  sin_dispatch(x, s, n);
  cos_dispatch(x, c, n);
}

// Our own f64 log1p (AVX2, AVX-512) needs no fix-up: a huge argument is the
// log of 1 + x in range, a subnormal one gives x (vector_log.cpp).
void log1p(const double* x, double* y, std::int64_t n) {
#ifdef EQSAT_VMATH_SLEEF
  if (vector_level() != VectorLevel::Sse2) return log1p_dispatch(x, y, n);
#endif
  log1p_typed(x, y, n);
}

void log1p(const float* x, float* y, std::int64_t n) {
  log1p_typed(x, y, n);
}

void erf(const double* x, double* y, std::int64_t n) {
  erf_typed(x, y, n);
}

void erf(const float* x, float* y, std::int64_t n) {
  erf_typed(x, y, n);
}

const char* implementation() {
#ifdef EQSAT_VMATH_SLEEF
  switch (vector_level()) {
    case VectorLevel::Avx512:
      return "own f64 exp, log, log1p, sin, cos, tanh and f32 tanh, sigmoid; SLEEF u10 (AVX-512)";
    case VectorLevel::Avx2:
      return "own f64 exp, log, log1p, sin, cos, tanh and f32 tanh, sigmoid; SLEEF u10 (AVX2)";
    case VectorLevel::Sse2:
      return "SLEEF u10 (SSE2)";
  }
#endif
  return "C library";
}

}  // namespace eqsat::backend::vmath
