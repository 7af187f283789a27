// oneDNN's f32 GEMM, loaded on first use: linking it would cost every
// process about 5,000 symbol look-ups at start (and load OpenCL and
// OpenMP), paid even by `eqsat optimize`, which never multiplies.
#pragma once

#include <cstdint>

namespace eqsat::backend::detail {

// dnnl_sgemm (row-major: c = op(a) op(b) + beta c, alpha 1) on the
// calling thread only; false when oneDNN is not installed (the caller
// falls back).
bool onednn_sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                  std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                  std::int64_t ldc);

}  // namespace eqsat::backend::detail
