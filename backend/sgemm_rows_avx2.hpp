// eqsat's own f32 product for CPUs whose vector level is AVX2: for a few
// rows (a recurrent step: a batch of hidden states times the recurrent
// weights), where the libraries' packing of b at every call costs as much
// as the product, a and b read where they lie (bench/README.md, "Speed
// round 28"); and for any number of rows when b's copy in strips is kept
// between calls (BStrips: a layer's weights; the f32 MLP and encoder
// layer of bench/onnx_models.py ran 1.07-1.15x faster, bench/README.md,
// "Speed round 30").
#pragma once

#include <cstdint>
#include <vector>

namespace eqsat::backend {
class BufferPool;
}

namespace eqsat::backend::detail {

// c = a op(b), plus c's old values when `accumulate`: a is m x k (leading
// dimension lda), b is stored k x n or, when `tb`, n x k (ldb), c is m x n
// (ldc), all row-major. `strips`, when not null (b stored k x n only), is
// b's copy in strips from its column 0 as given (BStrips::of, at a column
// that is a multiple of 8): the kernel reads it there instead, with the
// same arithmetic, so the bits do not change.
// Each element is summed the same way whatever m, n and the block around
// it, so a product split between threads has the bits of the whole. Runs on
// the calling thread. False (c untouched) when the vector level in use is
// not AVX2: the caller falls back to the libraries.
bool own_sgemm_rows(bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                    std::int64_t lda, const float* b, std::int64_t ldb, bool accumulate, float* c,
                    std::int64_t ldc, const float* strips = nullptr);

// A copy of a matrix b stored k x n in strips of 8 columns, kept while b
// stays the same: a loop's recurrent weights (a non-sequence, read at
// every step) or a program's constant weights (read at every run), as
// onnxruntime packs its initializers once. Strip s holds columns 8s..
// 8s + 7 of b's rows one after another (8k floats, zeros past column n):
// a tile reads it as one run of memory. Read in place, b's rows lie ldb
// floats apart, and at a power of two (an LSTM's 512 columns) they fall
// into a few sets of L1, which then holds little of a column block: the
// LSTM layer of bench/onnx_models.py ran 1.05x faster from strips
// (bench/README.md, "Speed round 29"), the MLP and encoder layer with
// their weights in strips 1.07-1.15x ("Speed round 30").
class BStrips {
 public:
  // The strips of b (k x n, leading dimension ldb), made on the first call
  // for this b since forget(): the caller keeps b's values until then.
  // Null when a new copy would take the pool's run past its memory limit
  // (count_in): the caller reads b in place instead.
  const float* of(const float* b, std::int64_t k, std::int64_t n, std::int64_t ldb);
  // The copy no longer stands for anything (a loop ends).
  void forget() { source_ = nullptr; }
  // Forgets the copy and frees its memory.
  void release() {
    forget();
    data_ = std::vector<float>();  // `= {}` would keep the capacity
  }
  // New copies count in `pool`'s bytes and limit (null: in none).
  void count_in(BufferPool* pool) { pool_ = pool; }

 private:
  std::vector<float> data_;
  const float* start_ = nullptr;  // data_'s first element on a 64-byte boundary
  const float* source_ = nullptr;
  std::int64_t k_ = 0, n_ = 0, ldb_ = 0;
  BufferPool* pool_ = nullptr;
};

}  // namespace eqsat::backend::detail
