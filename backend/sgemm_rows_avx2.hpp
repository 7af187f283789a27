// eqsat's own f32 product for a few rows (a recurrent step: a batch of
// hidden states times the recurrent weights), for CPUs whose vector level
// is AVX2. The libraries pack b at every call, which for a few rows costs
// as much as the product; here a and b are read where they lie
// (bench/README.md, "Speed round 28").
#pragma once

#include <cstdint>

namespace eqsat::backend::detail {

// c = a op(b), plus c's old values when `accumulate`: a is m x k (leading
// dimension lda), b is stored k x n or, when `tb`, n x k (ldb), c is m x n
// (ldc), all row-major.
// Each element is summed the same way whatever m, n and the block around
// it, so a product split between threads has the bits of the whole. Runs on
// the calling thread. False (c untouched) when the vector level in use is
// not AVX2: the caller falls back to the libraries.
bool own_sgemm_rows(bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                    std::int64_t lda, const float* b, std::int64_t ldb, bool accumulate, float* c,
                    std::int64_t ldc);

}  // namespace eqsat::backend::detail
