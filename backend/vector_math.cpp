#include "vector_math.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#ifdef EQSAT_HAVE_SLEEF
#include <sleef.h>
#endif

// SLEEF's entry points for one vector width: Sleef_<fn>d<W>_u10<isa> and
// Sleef_<fn>f<2W>_u10<isa>, named after the instruction set.
#if defined(EQSAT_HAVE_SLEEF) && defined(__AVX512F__)
#define EQSAT_VD __m512d
#define EQSAT_VF __m512
#define EQSAT_LOADD _mm512_loadu_pd
#define EQSAT_STORED _mm512_storeu_pd
#define EQSAT_LOADF _mm512_loadu_ps
#define EQSAT_STOREF _mm512_storeu_ps
#define EQSAT_WD 8
#define EQSAT_ISA "AVX-512"
#define EQSAT_D d8
#define EQSAT_F f16
#define EQSAT_SUFFIX avx512f
#elif defined(EQSAT_HAVE_SLEEF) && defined(__AVX2__) && defined(__FMA__)
#define EQSAT_VD __m256d
#define EQSAT_VF __m256
#define EQSAT_LOADD _mm256_loadu_pd
#define EQSAT_STORED _mm256_storeu_pd
#define EQSAT_LOADF _mm256_loadu_ps
#define EQSAT_STOREF _mm256_storeu_ps
#define EQSAT_WD 4
#define EQSAT_ISA "AVX2"
#define EQSAT_D d4
#define EQSAT_F f8
#define EQSAT_SUFFIX avx2
#elif defined(EQSAT_HAVE_SLEEF) && defined(__SSE2__)
#define EQSAT_VD __m128d
#define EQSAT_VF __m128
#define EQSAT_LOADD _mm_loadu_pd
#define EQSAT_STORED _mm_storeu_pd
#define EQSAT_LOADF _mm_loadu_ps
#define EQSAT_STOREF _mm_storeu_ps
#define EQSAT_WD 2
#define EQSAT_ISA "SSE2"
#define EQSAT_D d2
#define EQSAT_F f4
#define EQSAT_SUFFIX sse2
#endif

#ifdef EQSAT_WD
#define EQSAT_PASTE(a, b, c, d, e) a##b##c##d##e
#define EQSAT_EXPAND_PASTE(a, b, c, d, e) EQSAT_PASTE(a, b, c, d, e)
#define EQSAT_SLEEF_D(fn) EQSAT_EXPAND_PASTE(Sleef_, fn, EQSAT_D, _u10, EQSAT_SUFFIX)
#define EQSAT_SLEEF_F(fn) EQSAT_EXPAND_PASTE(Sleef_, fn, EQSAT_F, _u10, EQSAT_SUFFIX)
#endif

namespace eqsat::backend::vmath {

namespace {

// Applies the vector routine `f` (W lanes, loads L, stores S) to x[0..n).
template <int W, class T, class V, class F, class L, class S>
void apply(const T* x, T* y, std::int64_t n, F f, L load, S store) {
  std::int64_t i = 0;
  for (; i + W <= n; i += W) store(y + i, f(load(x + i)));
  if (i < n) {
    T tail[W] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(T));
    store(tail, f(load(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(T));
  }
}

}  // namespace

// EQSAT_VMATH_DEFINE(name, fn): our `name` for f64 and f32, computing the
// library's `fn`.
#ifdef EQSAT_WD
#define EQSAT_VMATH_DEFINE(name, fn)                              \
  void name(const double* x, double* y, std::int64_t n) {         \
    apply<EQSAT_WD, double, EQSAT_VD>(                            \
        x, y, n, [](EQSAT_VD v) { return EQSAT_SLEEF_D(fn)(v); }, \
        [](const double* p) { return EQSAT_LOADD(p); },           \
        [](double* p, EQSAT_VD v) { EQSAT_STORED(p, v); });       \
  }                                                               \
  void name(const float* x, float* y, std::int64_t n) {           \
    apply<2 * EQSAT_WD, float, EQSAT_VF>(                         \
        x, y, n, [](EQSAT_VF v) { return EQSAT_SLEEF_F(fn)(v); }, \
        [](const float* p) { return EQSAT_LOADF(p); },            \
        [](float* p, EQSAT_VF v) { EQSAT_STOREF(p, v); });        \
  }
const char* implementation() {
  return "SLEEF u10 (" EQSAT_ISA ")";
}
#else
#define EQSAT_VMATH_DEFINE(name, fn)                           \
  void name(const double* x, double* y, std::int64_t n) {      \
    for (std::int64_t i = 0; i < n; ++i) y[i] = std::fn(x[i]); \
  }                                                            \
  void name(const float* x, float* y, std::int64_t n) {        \
    for (std::int64_t i = 0; i < n; ++i) y[i] = std::fn(x[i]); \
  }
const char* implementation() {
  return "C library";
}
#endif

#define EQSAT_VMATH_SAME_NAME(name) EQSAT_VMATH_DEFINE(name, name)
EQSAT_VMATH_FUNCTIONS_BUT_LOG1P(EQSAT_VMATH_SAME_NAME)
#undef EQSAT_VMATH_SAME_NAME

namespace {
EQSAT_VMATH_DEFINE(log1p_vector, log1p)
EQSAT_VMATH_DEFINE(erf_vector, erf)
}  // namespace
#undef EQSAT_VMATH_DEFINE

namespace {

// SLEEF's log1p overflows to inf above about 1e307 (f64) or 1e38 (f32),
// where log1p(x) is log(x) to the last bit: blocks holding such an
// argument go through the C library.
template <class T>
void log1p_typed(const T* x, T* y, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  const T huge = std::numeric_limits<T>::max() / T(1024);
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t m = std::min(kBlock, n - b);
    if (std::any_of(x + b, x + b + m, [&](T v) { return v > huge; })) {
      for (std::int64_t i = b; i < b + m; ++i) y[i] = std::log1p(x[i]);
    } else {
      log1p_vector(x + b, y + b, m);
    }
  }
}

// SLEEF's erf of a subnormal argument is up to 1.2 ulp off; there erf(x)
// is 2x/√π to the last bit, computed in double (block by block, before
// SLEEF writes: y may be x).
template <class T>
void erf_typed(const T* x, T* y, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  T fixed[kBlock];
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t m = std::min(kBlock, n - b);
    bool tiny = false;
    for (std::int64_t i = 0; i < m; ++i) {
      const T v = x[b + i];
      fixed[i] = v != T(0) && std::abs(v) < std::numeric_limits<T>::min()
                     ? static_cast<T>(static_cast<double>(v) * 1.1283791670955126)
                     : T(0);
      tiny |= fixed[i] != T(0);
    }
    erf_vector(x + b, y + b, m);
    if (tiny)
      for (std::int64_t i = 0; i < m; ++i)
        if (fixed[i] != T(0)) y[b + i] = fixed[i];
  }
}

// t = exp(-|x|) <= 1, then 1 / (1 + t) for x >= 0 and t / (1 + t) below
// (no overflow, subnormal results for x < -708); 1 + t is carried as the
// exact sum s + e (|t| <= 1), and num / (s + e) as q (1 - e / s), so the
// result is within 1 ulp of the quotient of the exp computed: 2 ulp below 0,
// where exp's own ulp passes through it.
template <class T>
void sigmoid_typed(const T* x, T* y, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  T t[kBlock];
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t m = std::min(kBlock, n - b);
    for (std::int64_t i = 0; i < m; ++i) t[i] = -std::abs(x[b + i]);
    exp(t, t, m);
    for (std::int64_t i = 0; i < m; ++i) {
      const T s = T(1) + t[i];
      const T e = (T(1) - s) + t[i];
      const T q = (x[b + i] >= T(0) ? T(1) : t[i]) / s;
      y[b + i] = std::isnan(x[b + i]) ? x[b + i] : q - q * (e / s);
    }
  }
}

}  // namespace

void log1p(const double* x, double* y, std::int64_t n) {
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

void sigmoid(const double* x, double* y, std::int64_t n) {
  sigmoid_typed(x, y, n);
}

void sigmoid(const float* x, float* y, std::int64_t n) {
  sigmoid_typed(x, y, n);
}

}  // namespace eqsat::backend::vmath
