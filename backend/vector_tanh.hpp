// tanh of f32 arrays in f32 arithmetic, for AVX-512 (16 lanes) and AVX2
// (8): within 1 ulp of the exact result on every float (all 2^32 checked
// at both levels: tests/backend/test_vector_tanh.cpp), about three times
// cheaper than SLEEF's float tanh, whose float-float arithmetic was the
// largest cost of an LSTM cell (bench/README.md, "Speed round 11: f32
// tanh and sigmoid in f32"). vector_math.cpp calls them for f32 at those
// levels.
#pragma once

#include <cstdint>

namespace eqsat::backend::vmath {

// y[i] = tanh(x[i]) for i < n; x == y is fine. Each only on a CPU with its
// level (vector_level.hpp).
void tanh_f32_avx512(const float* x, float* y, std::int64_t n);
void tanh_f32_avx2(const float* x, float* y, std::int64_t n);

}  // namespace eqsat::backend::vmath
