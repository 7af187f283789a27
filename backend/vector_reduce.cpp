#include "vector_reduce.hpp"

#include "vector_level.hpp"

#include <cstring>
#include <limits>

namespace eqsat::backend::vmath {

namespace {

// Each level's loops over vectors of its width in bytes (GCC's vector
// extensions: `v > m ? v : m` is one vmaxpd); two accumulators hide the
// max's latency.
#define EQSAT_ROW_LOOPS(level, width)                                  \
  template <class T>                                                   \
  EQSAT_TARGET_##level T row_max_##level(const T* x, std::int64_t n) { \
    typedef T V __attribute__((vector_size(width)));                   \
    constexpr std::int64_t kLanes = width / sizeof(T);                 \
    constexpr T kLow = -std::numeric_limits<T>::infinity();            \
    V a, b;                                                            \
    for (std::int64_t j = 0; j < kLanes; ++j) a[j] = b[j] = kLow;      \
    std::int64_t i = 0;                                                \
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {                     \
      V u, v;                                                          \
      std::memcpy(&u, x + i, sizeof u);                                \
      std::memcpy(&v, x + i + kLanes, sizeof v);                       \
      a = u > a ? u : a;                                               \
      b = v > b ? v : b;                                               \
    }                                                                  \
    a = b > a ? b : a;                                                 \
    T m = kLow;                                                        \
    for (std::int64_t j = 0; j < kLanes; ++j) m = a[j] > m ? a[j] : m; \
    for (; i < n; ++i) m = x[i] > m ? x[i] : m;                        \
    return m;                                                          \
  }                                                                    \
  template <class T>                                                   \
  EQSAT_TARGET_##level T row_sum_##level(const T* x, std::int64_t n) { \
    T acc[16] = {};                                                    \
    std::int64_t i = 0;                                                \
    for (; i + 16 <= n; i += 16)                                       \
      for (int j = 0; j < 16; ++j) acc[j] += x[i + j];                 \
    for (int j = 0; i + j < n; ++j) acc[j] += x[i + j];                \
    for (int w = 8; w >= 1; w /= 2)                                    \
      for (int j = 0; j < w; ++j) acc[j] += acc[j + w];                \
    return acc[0];                                                     \
  }
EQSAT_ROW_LOOPS(sse2, 16)
EQSAT_ROW_LOOPS(avx2, 32)
EQSAT_ROW_LOOPS(avx512, 64)
#undef EQSAT_ROW_LOOPS

// The level's function in use.
template <class T, T (*Avx512)(const T*, std::int64_t), T (*Avx2)(const T*, std::int64_t),
          T (*Sse2)(const T*, std::int64_t)>
T at_level(const T* x, std::int64_t n) {
  switch (vector_level()) {
    case VectorLevel::Avx512:
      return Avx512(x, n);
    case VectorLevel::Avx2:
      return Avx2(x, n);
    case VectorLevel::Sse2:
      break;
  }
  return Sse2(x, n);
}

}  // namespace

float row_max(const float* x, std::int64_t n) {
  return at_level<float, row_max_avx512, row_max_avx2, row_max_sse2>(x, n);
}

double row_max(const double* x, std::int64_t n) {
  return at_level<double, row_max_avx512, row_max_avx2, row_max_sse2>(x, n);
}

float row_sum(const float* x, std::int64_t n) {
  return at_level<float, row_sum_avx512, row_sum_avx2, row_sum_sse2>(x, n);
}

double row_sum(const double* x, std::int64_t n) {
  return at_level<double, row_sum_avx512, row_sum_avx2, row_sum_sse2>(x, n);
}

}  // namespace eqsat::backend::vmath
