// Our own f64 exp, sin and cos for AVX-512 (8 lanes) and AVX2 (4 lanes)
// (vector_exp.cpp, vector_sin_cos.cpp), in vector_math.hpp's place at those
// levels: within 1 ulp like SLEEF's u10 routines (the promise of
// vector_math.hpp) and cheaper, on arguments inside each kernel's range; in
// a vector holding one outside it (or a NaN) those lanes take SLEEF's
// result, so the edges (infinities, NaN, overflow) are SLEEF's, and a
// lane's result never depends on the other lanes.
#pragma once

#include "sleef_entry_points.hpp"

#ifdef EQSAT_VMATH_SLEEF

#include <cstdint>
#include <cstring>

namespace eqsat::backend::vmath::avx512 {

void exp(const double* x, double* y, std::int64_t n);
void sin(const double* x, double* y, std::int64_t n);
void cos(const double* x, double* y, std::int64_t n);

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

}  // namespace eqsat::backend::vmath::avx512

namespace eqsat::backend::vmath::avx2 {

void exp(const double* x, double* y, std::int64_t n);
void sin(const double* x, double* y, std::int64_t n);
void cos(const double* x, double* y, std::int64_t n);

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

}  // namespace eqsat::backend::vmath::avx2

#endif
