// sigmoid of f32 arrays in f32 arithmetic, for AVX-512 (16 lanes) and AVX2
// (8): 1 / (1 + exp(-x)) within 2 ulp on every float (all 2^32 checked at
// both levels: tests/backend/test_vector_sigmoid.cpp), subnormal results
// far left, 0 below them, 1 far right, 0.5 at ±0, NaN through.
// vector_math.cpp calls them for f32 at those levels.
#pragma once

#include <cstdint>

namespace eqsat::backend::vmath {

// y[i] = sigmoid(x[i]) for i < n; x == y is fine. Each only on a CPU with
// its level (vector_level.hpp).
void sigmoid_f32_avx512(const float* x, float* y, std::int64_t n);
void sigmoid_f32_avx2(const float* x, float* y, std::int64_t n);

}  // namespace eqsat::backend::vmath
