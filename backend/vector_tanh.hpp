// tanh of f32 arrays on AVX-512, computed in double: within 1 ulp of the
// exact result on every float (checked on all of them:
// tests/backend/test_vector_tanh.cpp), and cheaper than SLEEF's
// float tanh, whose float-float arithmetic made it the largest cost of an
// LSTM cell (bench/README.md, "Speed round 8: f32
// tanh, logaddexp, large products"). vector_math.cpp calls it
// for f32 at the AVX-512 level.
#pragma once

#include <cstdint>

namespace eqsat::backend::vmath {

// y[i] = tanh(x[i]) for i < n; x == y is fine. Only on a CPU with the
// AVX-512 level (vector_level.hpp).
void tanh_f32_avx512(const float* x, float* y, std::int64_t n);

}  // namespace eqsat::backend::vmath
