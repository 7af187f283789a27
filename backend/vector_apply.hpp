// y = F(x) over arrays a vector register at a time, for our own vector
// kernels (vector_math_own.hpp, vector_tanh.hpp): the tail goes through F
// via a padded copy, so an element's result never depends on its
// position. In-place use (x == y) is fine.
#pragma once

#ifdef __x86_64__

#include "vector_level.hpp"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace eqsat::backend::vmath::avx512 {

// y[i] = F(x)[i] over x[0..n), 8 lanes at a time; the tail goes through F
// via a padded copy, so an element's result never depends on its position.
// In-place use (x == y) is fine.
template <__m512d (*F)(__m512d)>
EQSAT_TARGET_avx512 void apply(const double* x, double* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(y + i, F(_mm512_loadu_pd(x + i)));
  if (i < n) {
    alignas(64) double tail[8] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(double));
    _mm512_store_pd(tail, F(_mm512_load_pd(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(double));
  }
}

// The same over floats, 16 lanes at a time.
template <__m512 (*F)(__m512)>
EQSAT_TARGET_avx512 void apply(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, F(_mm512_loadu_ps(x + i)));
  if (i < n) {
    alignas(64) float tail[16] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(float));
    _mm512_store_ps(tail, F(_mm512_load_ps(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(float));
  }
}

// y[i] = F(x)[i] and z[i] = its second result, as apply: a kernel with two
// results (sincos). Neither output may be x.
template <void (*F)(__m512d, __m512d&, __m512d&)>
EQSAT_TARGET_avx512 void apply2(const double* x, double* y, double* z, std::int64_t n) {
  std::int64_t i = 0;
  __m512d a, b;
  for (; i + 8 <= n; i += 8) {
    F(_mm512_loadu_pd(x + i), a, b);
    _mm512_storeu_pd(y + i, a);
    _mm512_storeu_pd(z + i, b);
  }
  if (i < n) {
    alignas(64) double tail[8] = {}, second[8];
    std::memcpy(tail, x + i, (n - i) * sizeof(double));
    F(_mm512_load_pd(tail), a, b);
    _mm512_store_pd(tail, a);
    _mm512_store_pd(second, b);
    std::memcpy(y + i, tail, (n - i) * sizeof(double));
    std::memcpy(z + i, second, (n - i) * sizeof(double));
  }
}

}  // namespace eqsat::backend::vmath::avx512

namespace eqsat::backend::vmath::avx2 {

// As avx512::apply, 4 lanes at a time.
template <__m256d (*F)(__m256d)>
EQSAT_TARGET_avx2 void apply(const double* x, double* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(y + i, F(_mm256_loadu_pd(x + i)));
  if (i < n) {
    alignas(32) double tail[4] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(double));
    _mm256_store_pd(tail, F(_mm256_load_pd(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(double));
  }
}

// As avx512::apply2, 4 lanes at a time.
template <void (*F)(__m256d, __m256d&, __m256d&)>
EQSAT_TARGET_avx2 void apply2(const double* x, double* y, double* z, std::int64_t n) {
  std::int64_t i = 0;
  __m256d a, b;
  for (; i + 4 <= n; i += 4) {
    F(_mm256_loadu_pd(x + i), a, b);
    _mm256_storeu_pd(y + i, a);
    _mm256_storeu_pd(z + i, b);
  }
  if (i < n) {
    alignas(32) double tail[4] = {}, second[4];
    std::memcpy(tail, x + i, (n - i) * sizeof(double));
    F(_mm256_load_pd(tail), a, b);
    _mm256_store_pd(tail, a);
    _mm256_store_pd(second, b);
    std::memcpy(y + i, tail, (n - i) * sizeof(double));
    std::memcpy(z + i, second, (n - i) * sizeof(double));
  }
}

}  // namespace eqsat::backend::vmath::avx2

#endif
