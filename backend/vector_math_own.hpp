// Our own f64 exp, log, log1p, sin, cos and tanh for AVX-512 (8 lanes) and
// AVX2 (4 lanes) (vector_exp.cpp, vector_log.cpp, vector_sin_cos.cpp,
// vector_tanh_f64.cpp), in vector_math.hpp's place at those levels: within
// 1 ulp like SLEEF's u10 routines (the promise of vector_math.hpp) and
// cheaper, on arguments inside each kernel's range; in a vector holding
// one outside it (or a NaN) exp, log, log1p, sin and cos give those lanes
// SLEEF's result, so their edges (infinities, NaN, overflow; log's zero,
// negatives and subnormals, log1p's -1 and below) are SLEEF's. tanh has no outside: every double is
// in its range. A lane's result never depends on the other lanes.
#pragma once

#include "sleef_entry_points.hpp"
#include "vector_apply.hpp"

#ifdef EQSAT_VMATH_SLEEF

#include <cstdint>

namespace eqsat::backend::vmath::avx512 {

void exp(const double* x, double* y, std::int64_t n);
void sin(const double* x, double* y, std::int64_t n);
void cos(const double* x, double* y, std::int64_t n);
void tanh(const double* x, double* y, std::int64_t n);
void log(const double* x, double* y, std::int64_t n);
void log1p(const double* x, double* y, std::int64_t n);
// s = sin(x), c = cos(x) from one reduction, the bits of sin and cos.
void sincos(const double* x, double* s, double* c, std::int64_t n);

}  // namespace eqsat::backend::vmath::avx512

namespace eqsat::backend::vmath::avx2 {

void exp(const double* x, double* y, std::int64_t n);
void sin(const double* x, double* y, std::int64_t n);
void cos(const double* x, double* y, std::int64_t n);
void tanh(const double* x, double* y, std::int64_t n);
void log(const double* x, double* y, std::int64_t n);
void log1p(const double* x, double* y, std::int64_t n);
// s = sin(x), c = cos(x) from one reduction, the bits of sin and cos.
void sincos(const double* x, double* s, double* c, std::int64_t n);

}  // namespace eqsat::backend::vmath::avx2

#endif
