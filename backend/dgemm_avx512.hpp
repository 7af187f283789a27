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

// op(b) (k x n, from b stored as for own_dgemm) packed once for several
// own_dgemm_packed calls on rows of one product, so that threads splitting
// its rows share one packing: each packing all of b for its rows took 10%
// of the MLP gradient's time (backend/README.md, "Matrix products").
// Column panels of 32, panel q holding op(b)'s columns 32q.. as k rows of
// 32 (zero past n).
std::int64_t packed_b_panels(std::int64_t n);
// The calling thread's buffer for a packing of op(b) k x n, reused by its
// later calls; null (nothing to pack) below the AVX-512 vector level.
double* packed_b_buffer(std::int64_t n, std::int64_t k);
// Packs panels [first, last) of op(b) into `packed` (packed_b_buffer's).
void pack_b_panels(bool tb, std::int64_t n, std::int64_t k, const double* b, std::int64_t ldb,
                   std::int64_t first, std::int64_t last, double* packed);
// own_dgemm with op(b) already packed (all n columns of c's rows).
void own_dgemm_packed(bool ta, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                      std::int64_t lda, const double* packed, bool accumulate, double* c,
                      std::int64_t ldc);

}  // namespace eqsat::backend::detail
