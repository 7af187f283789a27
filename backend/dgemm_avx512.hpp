// eqsat's own f64 GEMM for CPUs with AVX-512: OpenBLAS 0.3.21's SkylakeX
// DGEMM reaches about 60-65% of a core's peak on an MLP's products, this
// one about 80% (backend/README.md, "Matrix products").
#pragma once

#include <cstdint>

namespace eqsat::backend::detail {

// c = op(a) op(b), plus c's old values when `accumulate` (beta 1), all
// row-major with leading dimensions lda, ldb, ldc; op transposes an operand
// stored transposed (ta: a is stored k x m, tb: b is stored n x k). Runs on
// the calling thread. False (c untouched) when the vector level in use
// (vector_level.hpp) is below AVX-512: the caller falls back to OpenBLAS.
bool own_dgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
               std::int64_t lda, const double* b, std::int64_t ldb, bool accumulate, double* c,
               std::int64_t ldc);

}  // namespace eqsat::backend::detail
