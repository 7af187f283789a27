// `dot` with numpy.matmul semantics: a 1-D left operand is a row vector and
// a 1-D right operand a column vector (their unit dimension is dropped from
// the result); leading dimensions are batch dimensions that broadcast.
// f32/f64 products go to OpenBLAS (GEMM, GEMV when one side is a vector,
// DOT when both are) when the build found it, large f32 blocks to oneDNN's
// GEMM when it found that too (below AVX-512 only shallow ones), f32
// products of a few rows to eqsat's own AVX2 kernel (sgemm_rows_avx2.hpp)
// at that level, large f64 ones to eqsat's own AVX-512 GEMM
// (dgemm_avx512.hpp) on a CPU that has it; integer ones (and all, without
// OpenBLAS) to Eigen. Where the executable owns its OpenBLAS (own_blas),
// the libraries run single-threaded and the executor's pool splits a large
// product's rows or columns, or a batch's products, between threads.
// An operand may be given transposed (its last two dimensions swapped, as
// stored): BLAS and Eigen then read it through their transpose flag, no
// copy is made.
#include "blas_start.hpp"
#include "block_reduce.hpp"
#include "dgemm_avx512.hpp"
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "onednn.hpp"
#include "sgemm_rows_avx2.hpp"

#include "thread_pool.hpp"
#include "vector_level.hpp"

#include "support/internal_error.hpp"

#include <Eigen/Core>

#ifdef EQSAT_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>

#include <vector>

namespace eqsat::backend::detail {

namespace {

// The operands as stacks of matrices: batch dims, then rows and columns
// (of the operands as the product sees them); ta, tb: the operand is
// stored transposed (a as k x m, b as n x k).
struct MatmulShape {
  Dims a_batch, b_batch;
  std::int64_t m = 1, k = 1, n = 1;
  bool ta = false, tb = false;
  bool accumulate = false;  // c holds values the product is added to (beta 1)
  // b stays the same between calls (BStrips, run_dot): own_sgemm_rows
  // takes the product whatever its rows; b_strips is its copy in strips,
  // or null when the copy was refused (read in place: the same bits).
  bool kept = false;
  const float* b_strips = nullptr;
};

// The shape a stored operand has once its last two dimensions are swapped
// (when `transposed`; a 1-D operand is its own transpose): for messages.
Dims as_seen(const Dims& stored, bool transposed) {
  Dims d = stored;
  if (transposed && d.size() >= 2) std::swap(d[d.size() - 2], d[d.size() - 1]);
  return d;
}

// Dimension i of as_seen(stored, transposed), without the copy (a loop's
// product is shaped at every step).
std::int64_t seen_dim(const Dims& stored, bool transposed, std::size_t i) {
  const std::size_t r = stored.size();
  if (transposed && r >= 2 && i + 2 >= r) i = i + 1 == r ? r - 2 : r - 1;
  return stored[i];
}

MatmulShape matmul_shape(TermRef op, const Dims& stored_a, const Dims& stored_b,
                         DotTranspose trans) {
  const std::size_t ra = stored_a.size(), rb = stored_b.size();
  MatmulShape s;
  s.ta = trans[0] && ra >= 2;
  s.tb = trans[1] && rb >= 2;
  if (ra == 0 || rb == 0) fail(op, "operands must have rank >= 1");
  const std::int64_t ka = seen_dim(stored_a, trans[0], ra - 1);
  const std::int64_t kb = rb == 1 ? stored_b[0] : seen_dim(stored_b, trans[1], rb - 2);
  if (ka != kb)
    fail(op, fmt::format("inner dimensions differ: {} and {} for shapes {} and {}", ka, kb,
                         ops::dims_to_string(as_seen(stored_a, trans[0])),
                         ops::dims_to_string(as_seen(stored_b, trans[1]))));
  s.k = ka;
  // The batch dimensions are the stored ones: a transpose swaps the last two.
  if (ra >= 2) {
    s.m = seen_dim(stored_a, trans[0], ra - 2);
    s.a_batch.assign(stored_a.begin(), stored_a.end() - 2);
  }
  if (rb >= 2) {
    s.n = seen_dim(stored_b, trans[1], rb - 1);
    s.b_batch.assign(stored_b.begin(), stored_b.end() - 2);
  }
  return s;
}

// Products of at most this many rows run as one GEMV a row: GEMM packs b
// at every call, and a recurrent step's 2 x 64 x 256 f32 product spends
// more time packing than multiplying (OpenBLAS 0.3.21 on an AVX2 Zen 3:
// GEMM 5.0 us, two GEMVs 2.0; bench/README.md, "Speed round 28"). The
// choice is the whole product's, not a block's, so that a product split
// between threads sums each element as the whole would.
constexpr std::int64_t kGemvRows = 2;
// f32 products of at most this many rows (a stored as is) go to
// own_sgemm_rows on an AVX2 CPU (an LSTM step; the choice is the whole
// product's, as for kGemvRows).
constexpr std::int64_t kOwnRowsMax = 32;
// Products of at least this many multiply-adds are split between threads
// (by rows, or by columns when there are few rows); a batch of smaller ones
// is shared between threads a product at a time. Below it, a product runs
// on one thread: splitting it would cost more than it saves.
constexpr std::int64_t kSplitProduct = std::int64_t{1} << 18;
// f32 blocks of at least this many multiply-adds go to oneDNN, smaller ones
// to OpenBLAS, whose per-call cost is lower (bench/README.md, "GEMM").
constexpr std::int64_t kOneDnnBlock = std::int64_t{1} << 16;
// Below AVX-512, oneDNN's f32 GEMM wins only on shallow products: on an
// AVX2 Zen 3, k < 256 ran faster in oneDNN (3200 x 64 x 512: 149 GFLOP/s
// against 99) and k >= 256 in OpenBLAS (256 x 512 x 512: 163 against 132),
// bench/README.md, "Speed round 28": deeper blocks go to OpenBLAS there.
constexpr std::int64_t kOneDnnAvx2MaxDepth = 255;

// A product of more rows goes to own_sgemm_rows with its b in strips when
// b has at least this many columns: below, the tile of a row's last 16
// columns holds 8 accumulators, too few FMAs in flight, and a 4096 x 64 x
// 64 product ran slower than in oneDNN, where 4096 x 64 x 96 did not.
constexpr std::int64_t kOwnStripsMinCols = 96;

// Whether an f32 product goes to own_sgemm_rows where the vector level
// allows: a few rows, or any number when b is kept between calls (whether
// or not its copy could be made: the choice, and so the bits, do not
// depend on the memory limit).
bool own_rows(const MatmulShape& s) {
  return !s.ta && (s.m <= kOwnRowsMax || s.kept);
}

// Whether an f32 block of rows x cols x k goes to oneDNN (the rest of the
// choice is OpenBLAS's).
bool onednn_block(std::int64_t rows, std::int64_t cols, std::int64_t k) {
  return rows * cols * k >= kOneDnnBlock &&
         (k <= kOneDnnAvx2MaxDepth || vector_level() >= VectorLevel::Avx512);
}
// f64 blocks of more than kOwnGemmBlock multiply-adds and at least
// kOwnGemmColumns columns go to own_dgemm: OpenBLAS's small-matrix kernels
// win below (96^3 ran 15% faster), and own_dgemm's tiles are 32 columns
// wide (512 x 16 x 64 ran at a third of OpenBLAS's speed).
constexpr std::int64_t kOwnGemmBlock = std::int64_t{1} << 20;
constexpr std::int64_t kOwnGemmColumns = 32;
// A block of a product of more than kWholeBytes of result is computed in
// chunks of rows of at most kChunkBytes (product_block): a quarter of a
// core's L2 on the machine measured, the rest for the chunk's operands
// (the LSTM's input projection took less CPU time with 256 KB chunks than
// with 512 KB or none: bench/README.md, "Speed round 6"). Each chunk packs
// the right operand again: a block of up to a core's L2 (a thread's half
// of each of an MLP's 256 x 512 x 512 f64 products, forward or backward)
// stays one call: the backward product took 6% less CPU time than in
// eight parts of 64-row chunks (bench/README.md, "Speed round 7: products
// in one part a thread"). A chunk has at least kChunkRows rows, which
// repay the packing.
constexpr std::int64_t kWholeBytes = std::int64_t{1} << 20;
constexpr std::int64_t kChunkBytes = std::int64_t{256} << 10;
constexpr std::int64_t kChunkRows = 64;

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A block of the product: rows [r0, r1) and columns [c0, c1) of c.
struct Block {
  std::int64_t r0, r1, c0, c1;
};

// Calls the epilogue (if any) for a block just written into `c`, a
// product's result inside the whole result that starts at `origin`, then
// the row-aligned groups after it (rows, a product of two matrices only:
// its blocks are whole rows).
template <class T>
struct Finish {
  const DotEpilogue* epilogue = nullptr;
  const T* origin = nullptr;
  const DotRows* rows = nullptr;

  void operator()(const MatmulShape& s, const T* c, const Block& blk) const {
    const std::int64_t base = c - origin, width = blk.c1 - blk.c0;
    if (epilogue && width == s.n) {
      (*epilogue)(base + blk.r0 * s.n, (blk.r1 - blk.r0) * s.n);
    } else if (epilogue) {
      for (std::int64_t r = blk.r0; r < blk.r1; ++r) (*epilogue)(base + r * s.n + blk.c0, width);
    }
    if (!rows) return;
    EQSAT_ASSERT(base == 0 && width == s.n);
    rows->done(blk.r0, blk.r1);
  }

  // The epilogue of a block the calling thread computed alone (a product
  // too small to split, or one on the library's own threads): split
  // between threads by rows when large, as a fused group would be.
  void on_threads(const MatmulShape& s, const T* c, const Block& blk) const {
    if (!epilogue && !rows) return;
    const std::int64_t per_row = blk.c1 - blk.c0 + (rows ? rows->work_per_row : 0);
    const std::int64_t grain = std::max<std::int64_t>(1, kParallelElements / per_row);
    parallel_for(blk.r1 - blk.r0, grain, [&](std::int64_t i0, std::int64_t i1) {
      (*this)(s, c, Block{blk.r0 + i0, blk.r0 + i1, blk.c0, blk.c1});
    });
  }
};

// The block with Eigen (integers, or a build without OpenBLAS).
template <class T>
void eigen_block(const MatmulShape& s, const T* a, const T* b, T* c, const Block& blk) {
  using Map = Eigen::Map<const RowMatrix<T>>;
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<RowMatrix<T>, 0, Stride> out(c + blk.r0 * s.n + blk.c0, blk.r1 - blk.r0,
                                          blk.c1 - blk.c0, Stride(s.n));
  auto into_out = [&](const auto& product) {
    if (s.accumulate)
      out.noalias() += product;
    else
      out.noalias() = product;
  };
  auto times_b = [&](const auto& rows) {
    if (s.tb)
      into_out(rows * Map(b, s.n, s.k).middleRows(blk.c0, blk.c1 - blk.c0).transpose());
    else
      into_out(rows * Map(b, s.k, s.n).middleCols(blk.c0, blk.c1 - blk.c0));
  };
  if (s.ta)
    times_b(Map(a, s.k, s.m).middleCols(blk.r0, blk.r1 - blk.r0).transpose());
  else
    times_b(Map(a, s.m, s.k).middleRows(blk.r0, blk.r1 - blk.r0));
}

#ifdef EQSAT_HAVE_OPENBLAS
// OpenBLAS's entry points for one float type, so that the product below is
// written once for f32 and f64.
template <class T>
struct Blas;
template <>
struct Blas<float> {
  static constexpr auto gemm = cblas_sgemm;
  static constexpr auto gemv = cblas_sgemv;
  static constexpr auto dot = cblas_sdot;
};
template <>
struct Blas<double> {
  static constexpr auto gemm = cblas_dgemm;
  static constexpr auto gemv = cblas_dgemv;
  static constexpr auto dot = cblas_ddot;
};

}  // namespace

namespace {

// OpenBLAS's thread count, set before its first use: 1 for the
// executable's own copy (the executor's pool splits the work: library
// threads spin between calls and take the cores the pool's next kernel
// needs; bench/README.md, "GEMM against the peak"); for a shared one,
// num_threads() sets it (the pool's count, capped by blas_threads).
void prepare_blas() {
  static const bool once = [] {
    if (own_blas())
      openblas_set_num_threads(1);
    else
      num_threads();  // it sets a shared OpenBLAS's count (thread_pool.hpp)
    return true;
  }();
  (void)once;
}

// The block with OpenBLAS (DOT for one element, GEMV for one row or column,
// GEMM otherwise) or, for large blocks, oneDNN's JIT GEMM (f32) or eqsat's
// own (f64).
template <class T>
void blas_block(const MatmulShape& s, const T* a, const T* b, T* c, const Block& blk) {
  using L = Blas<T>;
  const bool own = own_blas();
  prepare_blas();
  const auto rows = static_cast<blasint>(blk.r1 - blk.r0),
             cols = static_cast<blasint>(blk.c1 - blk.c0), k = static_cast<blasint>(s.k);
  // op(a)'s rows r0.. and op(b)'s columns c0.. as stored (row-major).
  const T* pa = s.ta ? a + blk.r0 : a + blk.r0 * s.k;
  const T* pb = s.tb ? b + blk.c0 * s.k : b + blk.c0;
  T* pc = c + blk.r0 * s.n + blk.c0;
  const auto lda = static_cast<blasint>(s.ta ? s.m : s.k),
             ldb = static_cast<blasint>(s.tb ? s.k : s.n), ldc = static_cast<blasint>(s.n);
  // Steps between consecutive elements of a row of op(a), a column of op(b).
  const blasint inc_a = s.ta ? lda : 1, inc_b = s.tb ? 1 : ldb;
  const T beta(s.accumulate ? 1 : 0);
  if constexpr (std::is_same_v<T, float>) {
    // b's strips from the block's first column, when they start a strip.
    const float* strips = s.b_strips && blk.c0 % 8 == 0 ? s.b_strips + blk.c0 * s.k : nullptr;
    if (own_rows(s) &&
        own_sgemm_rows(s.tb, rows, cols, k, pa, lda, pb, ldb, s.accumulate, pc, ldc, strips))
      return;
  }
  if (rows == 1 && cols == 1) {
    pc[0] = L::dot(k, pa, inc_a, pb, inc_b) + (s.accumulate ? pc[0] : T(0));
  } else if (rows == 1 || s.m <= kGemvRows) {  // each of c's rows = op(b)ᵀ a's row
    for (blasint i = 0; i < rows; ++i)
      L::gemv(CblasRowMajor, s.tb ? CblasNoTrans : CblasTrans, s.tb ? cols : k, s.tb ? k : cols,
              T(1), pb, ldb, pa + i * (s.ta ? 1 : lda), inc_a, beta, pc + i * ldc, 1);
  } else if (cols == 1) {  // c's column = op(a) b's column
    L::gemv(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.ta ? k : rows, s.ta ? rows : k, T(1),
            pa, lda, pb, inc_b, beta, pc, ldc);
  } else {
    if constexpr (std::is_same_v<T, float>)
      if (own && onednn_block(rows, cols, k) &&
          onednn_sgemm(s.ta, s.tb, rows, cols, k, pa, lda, pb, ldb, beta, pc, ldc))
        return;
    if constexpr (std::is_same_v<T, double>)
      if (own && std::int64_t{rows} * cols * k > kOwnGemmBlock && cols >= kOwnGemmColumns &&
          own_dgemm(s.ta, s.tb, rows, cols, k, pa, lda, pb, ldb, s.accumulate, pc, ldc))
        return;
    L::gemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, rows,
            cols, k, T(1), pa, lda, pb, ldb, beta, pc, ldc);
  }
}
#endif

// The block, then its epilogue while the block is in cache. With the
// executable's own OpenBLAS, a block of more than kWholeBytes of result
// is computed a chunk of rows at a time, each finished before the next,
// so the epilogue reads its chunk from L2 (an LSTM's 3200 x 512 input
// projection plus bias wrote 6.5 MB, then read it back from memory),
// unless its b is larger than kWholeBytes: each chunk packs b again, and
// a 1000 x 1000 f64 product took 13-15% more CPU time in 64-row chunks
// than in one call (bench/README.md, "Speed round 8: f32 tanh,
// logaddexp, large products"). Chunks are cut by
// the shapes alone, the same way with and without an epilogue, so the
// two give the same bits (the libraries round the rows at a call's edge
// differently).
template <class T>
void product_block(const MatmulShape& s, const T* a, const T* b, T* c, const Block& blk,
                   const Finish<T>& finish) {
#ifdef EQSAT_HAVE_OPENBLAS
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    // OpenBLAS maps a buffer of 128 MiB for each call running at once and
    // retries forever when the mapping fails (thread_pool.hpp,
    // blas_threads): under an address-space limit too small for one
    // buffer per pool thread, products ran by every thread at once hung.
    // There Eigen computes them (it allocates little, and fails with an
    // out-of-memory error rather than waiting).
    static const bool buffers_fit =
        blas_threads(num_threads(), address_space_limit()) >= num_threads();
    if (own_blas() && !buffers_fit) {
      eigen_block(s, a, b, c, blk);
      return finish(s, c, blk);
    }
    if (own_blas()) {
      const std::int64_t row_bytes = (blk.c1 - blk.c0) * std::int64_t{sizeof(T)};
      const bool whole = (blk.r1 - blk.r0) * row_bytes <= kWholeBytes ||
                         s.k * row_bytes > kWholeBytes;  // b's columns of the block
      const std::int64_t rows =
          whole ? blk.r1 - blk.r0 : std::max(kChunkRows, kChunkBytes / row_bytes);
      for (std::int64_t r0 = blk.r0; r0 < blk.r1; r0 += rows) {
        const Block chunk{r0, std::min(blk.r1, r0 + rows), blk.c0, blk.c1};
        blas_block(s, a, b, c, chunk);
        finish(s, c, chunk);
      }
      return;
    }
    if ((blk.r1 - blk.r0) * (blk.c1 - blk.c0) * s.k >= kSplitProduct) {
      blas_block(s, a, b, c, blk);
      return finish(s, c, blk);
    }
  }
#endif
  eigen_block(s, a, b, c, blk);
  finish(s, c, blk);
}

// Whether products of T run on the library's own threads (see own_blas).
template <class T>
bool library_threads() {
#ifdef EQSAT_HAVE_OPENBLAS
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return !own_blas();
#endif
  return false;
}

// One product on every thread: its rows split between them, or its
// columns when it has fewer rows than columns (a row vector, an LSTM step)
// and the library can take a column block (Eigen takes rows only).
template <class T>
void split_product(const MatmulShape& s, const T* a, const T* b, T* c, const Finish<T>& finish) {
  if (library_threads<T>()) {
    product_block(s, a, b, c, Block{0, s.m, 0, s.n}, Finish<T>{});
    finish.on_threads(s, c, Block{0, s.m, 0, s.n});
    return;
  }
#ifdef EQSAT_HAVE_OPENBLAS
  const bool by_columns = s.n > s.m && (std::is_same_v<T, double> || std::is_same_v<T, float>);
#else
  const bool by_columns = false;
#endif
  // Followers need whole rows: a product split by columns runs them after
  // all its blocks rather than being split by rows, since the libraries'
  // kernels round a row differently in a block of other rows (on an AVX2
  // Zen 3, oneDNN's and OpenBLAS's sgemm do), and the product must be the
  // one it is without followers.
  const bool rows_after = by_columns && finish.rows;
  const Finish<T> per_block =
      rows_after ? Finish<T>{finish.epilogue, finish.origin, nullptr} : finish;
  const std::int64_t extent = by_columns ? s.n : s.m;
  const std::int64_t per_line = s.k * (by_columns ? s.m : s.n);
  // One part per thread (parts stay above oneDNN's block size): each part
  // packs its operands again, and a 256 x 512 x 512 f64 product took
  // 10-15% more CPU time in four parts a thread than in one
  // (bench/README.md, "Speed round 7: products in one part a thread"),
  // more than a late thread's share costs. Split by rows (a product
  // running its followers), each thread packs all of b, as bench_gemm's
  // onednn-split column does (bench/README.md, "Speed round 7: the LSTM
  // cell runs with its product").
  const std::int64_t grain = std::max({std::int64_t{1}, (kOneDnnBlock + per_line - 1) / per_line,
                                       (extent + num_threads() - 1) / num_threads()});
  parallel_for(extent, grain, [&](std::int64_t i0, std::int64_t i1) {
    product_block(s, a, b, c, by_columns ? Block{0, s.m, i0, i1} : Block{i0, i1, 0, s.n},
                  per_block);
  });
  if (rows_after)
    Finish<T>{nullptr, finish.origin, finish.rows}.on_threads(s, c, Block{0, s.m, 0, s.n});
}

template <class T>
void matmul_typed(const MatmulShape& s, const Dims& batch, const T* a, const T* b, T* c,
                  const Finish<T>& finish) {
  const std::int64_t sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n;
  EQSAT_ASSERT(!finish.rows || batch.empty());
  if (sc == 0) return;
  if (s.k == 0) {
    if (!s.accumulate) std::fill_n(c, num_elements(batch) * sc, T(0));
    if (finish.epilogue) (*finish.epilogue)(c - finish.origin, num_elements(batch) * sc);
    if (finish.rows) finish.rows->done(0, s.m);
    return;
  }
  const std::int64_t work = s.m * s.n * s.k;
  const Block whole{0, s.m, 0, s.n};
  if (batch.empty()) {
    if (work >= kSplitProduct) {
      split_product(s, a, b, c, finish);
    } else {
      product_block(s, a, b, c, whole, Finish<T>{});
      finish.on_threads(s, c, whole);
    }
    return;
  }
  // A stack of matrices times one matrix is one product of the stacked
  // rows: one call, b packed once (an LSTM's inputs times its weights).
  if (!s.ta && num_elements(s.b_batch) == 1 && num_elements(s.a_batch) == num_elements(batch)) {
    MatmulShape rows = s;
    rows.m = s.m * num_elements(batch);
    rows.a_batch.clear();
    rows.b_batch.clear();
    matmul_typed(rows, {}, a, b, c, finish);
    return;
  }
  // The offsets of each product's operands, then the products: shared
  // between threads a product at a time when there are enough of them,
  // else one after another, each split.
  std::vector<std::array<std::int64_t, 2>> offsets;
  const Broadcast<2> plan(batch, {&s.a_batch, &s.b_batch});
  plan.for_each_run([&](const auto& off, std::int64_t, std::int64_t n, const auto& inner) {
    for (std::int64_t i = 0; i < n; ++i)
      offsets.push_back({(off[0] + i * inner[0]) * sa, (off[1] + i * inner[1]) * sb});
  });
  const auto count = static_cast<std::int64_t>(offsets.size());
  if (work >= kSplitProduct && (count < num_threads() || library_threads<T>())) {
    for (std::int64_t i = 0; i < count; ++i)
      split_product(s, a + offsets[i][0], b + offsets[i][1], c + i * sc, finish);
    return;
  }
  parallel_for(count, std::max<std::int64_t>(1, kSplitProduct / work),
               [&](std::int64_t i0, std::int64_t i1) {
                 for (std::int64_t i = i0; i < i1; ++i)
                   product_block(s, a + offsets[i][0], b + offsets[i][1], c + i * sc, whole,
                                 finish);
               });
}

}  // namespace

void dot_shape(TermRef op, Operands in, Dims& shape, DotTranspose trans) {
  const Dims& a = in[0]->shape();
  const Dims& b = in[1]->shape();
  const MatmulShape s = matmul_shape(op, a, b, trans);
  const std::array<const Dims*, 2> batches{&s.a_batch, &s.b_batch};
  try {
    broadcast_shapes(op, batches, shape);
  } catch (const RuntimeError&) {
    fail(op, fmt::format("batch dimensions of shapes {} and {} do not broadcast",
                         ops::dims_to_string(as_seen(a, trans[0])),
                         ops::dims_to_string(as_seen(b, trans[1]))));
  }
  if (a.size() >= 2) shape.push_back(s.m);
  if (b.size() >= 2) shape.push_back(s.n);
}

void run_dot(TermRef op, Operands in, Array& out, DotTranspose trans, const DotEpilogue* epilogue,
             const DotRows* rows, bool accumulate, BStrips* kept_b) {
  // Operands of another dtype are converted first.
  Array copies[2];
  for (int i = 0; i < 2; ++i)
    if (in[i]->dtype() != out.dtype()) copies[i] = converted(*in[i], out.dtype());
  const Array& a = in[0]->dtype() == out.dtype() ? *in[0] : copies[0];
  const Array& b = in[1]->dtype() == out.dtype() ? *in[1] : copies[1];
  MatmulShape s = matmul_shape(op, a.shape(), b.shape(), trans);
  s.accumulate = accumulate;
  const std::array<const Dims*, 2> batches{&s.a_batch, &s.b_batch};
  Dims batch;
  broadcast_shapes(op, batches, batch);
  // A b that stays the same between calls (a constant, a loop's
  // non-sequence) is read from strips made at the first: one matrix b as
  // is (a stack of a's rows times it is one product, matmul_typed), a as
  // is, on a CPU where own_sgemm_rows runs, with the executable's own
  // OpenBLAS (so that product_block reaches it).
  if (kept_b && out.dtype() == DType::F32 && &b == in[1] && num_elements(s.b_batch) == 1 && !s.ta &&
      !s.tb && s.k > 0 && (s.m <= kOwnRowsMax || s.n >= kOwnStripsMinCols) &&
      vector_level() == VectorLevel::Avx2 && own_blas()) {
    s.kept = true;
    s.b_strips = kept_b->of(b.data<float>(), s.k, s.n, s.n);
  }
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (!std::is_same_v<T, bool>)
      matmul_typed<T>(s, batch, a.data<T>(), b.data<T>(), out.data<T>(),
                      Finish<T>{epilogue, out.data<T>(), rows});
  });
}

}  // namespace eqsat::backend::detail
