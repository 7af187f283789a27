// Vectorized double-precision transcendentals that Eigen 3.4 computes one
// element at a time (sin, cos, tanh, log1p, expm1): glibc's libmvec entry
// points for the host's widest vector unit (AVX-512 or AVX2), scalar libm
// otherwise. libmvec is accurate to 4 ulp. In-place use (x == y) is fine.
#pragma once

#include <cstdint>

namespace eqsat::backend::vmath {

void sin(const double* x, double* y, std::int64_t n);
void cos(const double* x, double* y, std::int64_t n);
void tanh(const double* x, double* y, std::int64_t n);
void log1p(const double* x, double* y, std::int64_t n);
void expm1(const double* x, double* y, std::int64_t n);

}  // namespace eqsat::backend::vmath
