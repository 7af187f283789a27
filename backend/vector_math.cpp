#include "vector_math.hpp"

#include <cmath>
#include <cstring>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

// libmvec's vector variants, named by the x86 vector function ABI:
// _ZGVeN8v_ takes and returns 8 doubles in a zmm register (AVX-512),
// _ZGVdN4v_ 4 doubles in a ymm register (AVX2).
#if defined(__AVX512F__)
#define EQSAT_VMATH_WIDTH 8
#define EQSAT_VMATH_DECLARE(name) extern "C" __m512d _ZGVeN8v_##name(__m512d);
#define EQSAT_VMATH_FN(name) _ZGVeN8v_##name
#define EQSAT_VMATH_LOAD _mm512_loadu_pd
#define EQSAT_VMATH_STORE _mm512_storeu_pd
#elif defined(__AVX2__)
#define EQSAT_VMATH_WIDTH 4
#define EQSAT_VMATH_DECLARE(name) extern "C" __m256d _ZGVdN4v_##name(__m256d);
#define EQSAT_VMATH_FN(name) _ZGVdN4v_##name
#define EQSAT_VMATH_LOAD _mm256_loadu_pd
#define EQSAT_VMATH_STORE _mm256_storeu_pd
#endif

#ifdef EQSAT_VMATH_WIDTH
EQSAT_VMATH_DECLARE(sin)
EQSAT_VMATH_DECLARE(cos)
EQSAT_VMATH_DECLARE(tanh)
EQSAT_VMATH_DECLARE(log1p)
EQSAT_VMATH_DECLARE(expm1)
#endif

namespace eqsat::backend::vmath {

#ifdef EQSAT_VMATH_WIDTH
// Full vectors first; the tail goes through the same vector routine via a
// padded copy, so an element's result never depends on its position.
#define EQSAT_VMATH_DEFINE(name)                                               \
  void name(const double* x, double* y, std::int64_t n) {                      \
    constexpr int w = EQSAT_VMATH_WIDTH;                                       \
    std::int64_t i = 0;                                                        \
    for (; i + w <= n; i += w)                                                 \
      EQSAT_VMATH_STORE(y + i, EQSAT_VMATH_FN(name)(EQSAT_VMATH_LOAD(x + i))); \
    if (i < n) {                                                               \
      double tail[w] = {};                                                     \
      std::memcpy(tail, x + i, (n - i) * sizeof(double));                      \
      EQSAT_VMATH_STORE(tail, EQSAT_VMATH_FN(name)(EQSAT_VMATH_LOAD(tail)));   \
      std::memcpy(y + i, tail, (n - i) * sizeof(double));                      \
    }                                                                          \
  }
#else
#define EQSAT_VMATH_DEFINE(name)                                 \
  void name(const double* x, double* y, std::int64_t n) {        \
    for (std::int64_t i = 0; i < n; ++i) y[i] = std::name(x[i]); \
  }
#endif

EQSAT_VMATH_DEFINE(sin)
EQSAT_VMATH_DEFINE(cos)
EQSAT_VMATH_DEFINE(tanh)
EQSAT_VMATH_DEFINE(log1p)
EQSAT_VMATH_DEFINE(expm1)

}  // namespace eqsat::backend::vmath
