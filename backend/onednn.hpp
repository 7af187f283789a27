// oneDNN's f32 GEMM, loaded on first use: linking it would cost every
// process about 5,000 symbol look-ups at start (and load OpenCL and
// OpenMP), paid even by `eqsat optimize`, which never multiplies.
#pragma once

#include <cstddef>
#include <cstdint>

namespace eqsat::backend::detail {

// dnnl_sgemm (row-major: c = op(a) op(b), alpha 1, beta 0) on the calling
// thread only; false when oneDNN is not installed (the caller falls back).
// When b lies in a held matrix (HeldMatrix), the product uses b as packed
// once by oneDNN for that shape instead of packing it again at every call.
bool onednn_sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                  std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc);

// A matrix that keeps its values while this object lives: a loop's
// non-sequence, which every step multiplies by (an LSTM's recurrent
// weight, packed again at each step: about 10% of a 8 x 128 x 512 product
// on one core). Products reading it as their right operand compute from
// a pack made at their first call (oneDNN's sgemm_pack, one per shape and
// block, kept until the last holder of the bytes goes). Threads may hold
// and multiply at once; holders of the same bytes nest.
class HeldMatrix {
 public:
  HeldMatrix(const void* data, std::size_t bytes);
  ~HeldMatrix();
  HeldMatrix(const HeldMatrix&) = delete;
  HeldMatrix& operator=(const HeldMatrix&) = delete;

 private:
  const void* data_;
  std::size_t bytes_;
};

// Packs made for held matrices and still kept (for tests).
std::size_t held_packs();
// Whether the oneDNN found has the packed GEMM (for tests).
bool onednn_packs();

}  // namespace eqsat::backend::detail
