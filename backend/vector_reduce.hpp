// The maximum and the sum of a contiguous row with the loops of the vector
// level in use (vector_level.hpp): softmax, log_softmax and logsumexp took
// most of their time in Eigen's, which are compiled for SSE2 only.
#pragma once

#include <cstdint>

namespace eqsat::backend::vmath {

// The largest element of x[0..n), NaN ignored: -inf when there is none.
// (A softmax's NaN still reaches every result through the sum.)
float row_max(const float* x, std::int64_t n);
double row_max(const double* x, std::int64_t n);

// The sum of x[0..n) as 16 partial sums, element i into sum i mod 16,
// added pairwise at the end: one order, so the same bits at every level.
float row_sum(const float* x, std::int64_t n);
double row_sum(const double* x, std::int64_t n);

}  // namespace eqsat::backend::vmath
