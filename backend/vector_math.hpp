// Vectorized transcendentals over contiguous arrays, f32 and f64: SLEEF's
// u10 functions (at most 1 ulp from the exact result) for the CPU's widest
// vector unit (AVX-512, AVX2 or SSE2), chosen at run time (vector_level.hpp),
// except f64 exp, log, log1p, sin, cos and tanh at AVX2 and AVX-512, our own
// (vector_math_own.hpp, also within 1 ulp), and f32 tanh at AVX2 and
// AVX-512, ours too in f32 arithmetic (vector_tanh.hpp, within 1 ulp); the
// C library where SLEEF is not installed. Correct at +-inf, NaN and subnormals: exp
// gives subnormal results and 0 below the range (exp(-800) = 0, as in
// NumPy), log of a subnormal argument is finite. The tail of an array goes
// through the same vector routine via a padded copy, so an element's result
// never depends on its position. In-place use (x == y) is fine.
#pragma once

#include <cstdint>

namespace eqsat::backend::vmath {

// The functions, one X(name) each.
#define EQSAT_VMATH_FUNCTIONS(X) X(exp) X(log) X(sin) X(cos) X(tanh) X(expm1) X(log1p) X(erf)

#define EQSAT_VMATH_DECLARE(name)                        \
  void name(const double* x, double* y, std::int64_t n); \
  void name(const float* x, float* y, std::int64_t n);
EQSAT_VMATH_FUNCTIONS(EQSAT_VMATH_DECLARE)
#undef EQSAT_VMATH_DECLARE

// 1 / (1 + exp(-x)), computed from exp(-|x|) with the sum 1 + exp(-|x|)
// carried exactly: within 2 ulp (below 0 exp's error passes through the
// quotient), no overflow, subnormal results for x < -708 (f32: -87). f32
// at AVX2 and AVX-512 is ours in f32 arithmetic (vector_sigmoid.hpp), 1 /
// (1 + exp(-x)) with the sum carried exactly, also within 2 ulp.
void sigmoid(const double* x, double* y, std::int64_t n);
void sigmoid(const float* x, float* y, std::int64_t n);

// s = sin(x) and c = cos(x), the bits of sin and cos; where our own f64
// kernels run (AVX2, AVX-512), from one argument reduction and for about
// the cost of one of them. s and c must not be x.
void sincos(const double* x, double* s, double* c, std::int64_t n);
void sincos(const float* x, float* s, float* c, std::int64_t n);

// Which implementation is in use, at the level in use (vector_level.hpp):
// "own f64 exp, sin, cos; SLEEF u10 (AVX2)", "C library", ...
const char* implementation();

}  // namespace eqsat::backend::vmath
