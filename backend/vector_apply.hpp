// y = F(x) over arrays a vector register at a time, for our own vector
// kernels (vector_math_own.hpp, vector_tanh.hpp) and SLEEF's routines
// (vector_math.cpp): the tail goes through F via a padded copy, so an
// element's result never depends on its position. In-place use (x == y) is
// fine. And sleef_lanes: SLEEF's result in the lanes outside a kernel's range.
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

// `out` with G(x) in the lanes not in `in`: G is SLEEF's routine, for the
// lanes outside a kernel's range. Out of line: the kernel's common loop
// then keeps its registers.
template <__m512d (*G)(__m512d)>
EQSAT_TARGET_avx512 __attribute__((noinline)) __m512d sleef_lanes(__m512d x, __m512d out,
                                                                  __mmask8 in) {
  return _mm512_mask_blend_pd(in, G(x), out);
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

// The same over floats, 8 lanes at a time.
template <__m256 (*F)(__m256)>
EQSAT_TARGET_avx2 void apply(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, F(_mm256_loadu_ps(x + i)));
  if (i < n) {
    alignas(32) float tail[8] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(float));
    _mm256_store_ps(tail, F(_mm256_load_ps(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(float));
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

// As avx512::sleef_lanes, the mask a vector.
template <__m256d (*G)(__m256d)>
EQSAT_TARGET_avx2 __attribute__((noinline)) __m256d sleef_lanes(__m256d x, __m256d out,
                                                                __m256d in) {
  return _mm256_blendv_pd(G(x), out, in);
}

}  // namespace eqsat::backend::vmath::avx2

namespace eqsat::backend::vmath::sse2 {

// As avx512::apply, 2 lanes at a time. F is `auto`: one template for the
// f64 and the f32 routines.
template <auto F>
EQSAT_TARGET_sse2 void apply(const double* x, double* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 2 <= n; i += 2) _mm_storeu_pd(y + i, F(_mm_loadu_pd(x + i)));
  if (i < n) {
    alignas(16) double tail[2] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(double));
    _mm_store_pd(tail, F(_mm_load_pd(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(double));
  }
}

// The same over floats, 4 lanes at a time.
template <auto F>
EQSAT_TARGET_sse2 void apply(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, F(_mm_loadu_ps(x + i)));
  if (i < n) {
    alignas(16) float tail[4] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(float));
    _mm_store_ps(tail, F(_mm_load_ps(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(float));
  }
}

}  // namespace eqsat::backend::vmath::sse2

#endif
