// exp and log over contiguous arrays, exact in the subnormal range. Eigen
// 3.4's vectorized exp clamps its argument at the log of the smallest
// normal number, so where e^x is subnormal or 0 (x below about -708.4 for
// f64, -87.3 for f32, and x = -inf) it returns that smallest normal; its
// log treats a subnormal argument as the smallest normal. These kernels run
// Eigen on every block of 512 elements that has no such argument and the C
// library on the few blocks that do.
#pragma once

#include <cstdint>

namespace eqsat::backend {

// y[i] = e^x[i] for i < n; y may be x.
void exact_exp(const double* x, double* y, std::int64_t n);
void exact_exp(const float* x, float* y, std::int64_t n);

// y[i] = log x[i] for i < n; y may be x.
void exact_log(const double* x, double* y, std::int64_t n);
void exact_log(const float* x, float* y, std::int64_t n);

}  // namespace eqsat::backend
