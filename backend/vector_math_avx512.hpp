// Our own AVX-512 f64 exp, sin and cos (vector_exp.cpp,
// vector_sin_cos.cpp), in vector_math.hpp's place at the AVX-512 level:
// within 1 ulp like SLEEF's u10 routines (the promise of vector_math.hpp)
// and cheaper, on arguments inside each kernel's range; in a vector of 8
// arguments holding one outside it (or a NaN) those lanes take SLEEF's
// result, so the edges (infinities, NaN, overflow, subnormal results) are
// SLEEF's, and a lane's result never depends on the other lanes.
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

#endif
