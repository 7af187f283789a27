// Blocked as in Goto's and BLIS's GEMMs: c is computed a block of
// kBlockRows x kBlockCols at a time; for each slice of kDepth of k, each
// panel of kCols columns of op(b) is packed and every panel of kRows rows
// of op(a) runs against it while it is in cache, a register tile of
// kRows x kCols of c per pair. Packing absorbs b's transpose, strides and
// edges (zero-padded). A stored transposed is packed too (a slice of k at
// a time); a stored as is is read where it lies: a tile's rows of it are
// kRows runs along k, which the hardware prefetches, and packing them
// cost more than it saved (bench/README.md, "Speed and start-up round 27"). The vectors
// lie along c's rows, so tiles are stored whole.
#include "dgemm_avx512.hpp"

#include "vector_level.hpp"

#ifdef __x86_64__
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

namespace eqsat::backend::detail {

#ifdef __x86_64__
namespace {

// The register tile: kRows x kVectors accumulators of 8 doubles (24 of the
// 32 registers, 4 more hold a row of b's panel). On the MLP's shapes 6 x 32
// ran 5-15% faster than 14 x 16, 12 x 16 or 8 x 24 (one broadcast of a
// feeds 4 FMAs: fewer loads a multiply-add).
constexpr int kRows = 6;
constexpr int kVectors = 4;
constexpr int kCols = 8 * kVectors;
// A slice of k: b's panel is kDepth x kCols (64 KB), a's kRows x kDepth
// (12 KB). 128 to 512 ran the MLP's shapes within the noise of each other.
constexpr std::int64_t kDepth = 256;
// c's blocks: 1 MB, a core's L2, where every slice of k adds to it; a's
// rows of a block are packed a slice of k at a time (512 KB). A thread's
// share of the MLP's products is one block; 500 x 1000 x 1000 ran 10-15%
// slower in blocks of 128 x 512 or 128 x 256.
constexpr std::int64_t kBlockRows = 256;
constexpr std::int64_t kBlockCols = 512;

struct Free {
  void operator()(double* p) const { std::free(p); }
};
using Doubles = std::unique_ptr<double[], Free>;

Doubles aligned_doubles(std::size_t n) {
  void* p = std::aligned_alloc(64, n * sizeof(double));
  if (!p) throw std::bad_alloc();
  return Doubles(static_cast<double*>(p));
}

// A thread's packing buffers, allocated on its first product.
struct Packed {
  Doubles a = aligned_doubles((kBlockRows + kRows) * kDepth);
  Doubles b = aligned_doubles(kCols * kDepth);
};

// `rows` (<= kRows) rows of op(a) by kc, a stored transposed (op(a)'s
// column p is row p of a), from `a` (op(a)'s first element of the panel),
// into dst[p * kRows + i], rows past `rows` zero.
void pack_a_transposed(const double* a, std::int64_t lda, std::int64_t rows, std::int64_t kc,
                       double* dst) {
  for (std::int64_t p = 0; p < kc; ++p, dst += kRows) {
    std::memcpy(dst, a + p * lda, rows * sizeof(double));
    std::fill(dst + rows, dst + kRows, 0.0);
  }
}

// The mask of the first `n` (0..8) lanes.
inline __mmask8 first_lanes(std::int64_t n) {
  return static_cast<__mmask8>((1u << n) - 1);
}

// Transposes the 8 x 8 block held in r[0..7] (one row a register).
EQSAT_TARGET_avx512 void transpose8(__m512d (&r)[8]) {
  __m512d t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4)
    for (int h = 0; h < 2; ++h) {
      u[i + 2 * h] = _mm512_shuffle_f64x2(t[i + h], t[i + h + 2], 0x88);
      u[i + 2 * h + 1] = _mm512_shuffle_f64x2(t[i + h], t[i + h + 2], 0xdd);
    }
  // u[0]: columns 0 and 4 of rows 0-3, u[1]: 2 and 6, u[2]: 1 and 5, u[3]: 3 and 7.
  constexpr int kColumn[4] = {0, 2, 1, 3};
  for (int h = 0; h < 4; ++h) {
    r[kColumn[h]] = _mm512_shuffle_f64x2(u[h], u[h + 4], 0x88);
    r[kColumn[h] + 4] = _mm512_shuffle_f64x2(u[h], u[h + 4], 0xdd);
  }
}

// kc rows of `cols` (<= kCols) columns of op(b), from `b` (op(b)'s first
// element of the panel), into dst[p * kCols + j], columns past `cols` zero.
EQSAT_TARGET_avx512 void pack_b(bool tb, const double* b, std::int64_t ldb, std::int64_t cols,
                                std::int64_t kc, double* dst) {
  if (tb) {  // op(b)'s column j is row j of b as stored: 8 x 8 blocks transposed
    for (int j = 0; j < kCols; j += 8)
      for (std::int64_t p = 0; p < kc; p += 8) {
        const __mmask8 depth = first_lanes(std::min<std::int64_t>(8, kc - p));
        __m512d r[8];
#pragma GCC unroll 8
        for (int q = 0; q < 8; ++q)
          r[q] = j + q < cols ? _mm512_maskz_loadu_pd(depth, b + (j + q) * ldb + p)
                              : _mm512_setzero_pd();
        transpose8(r);
        for (int q = 0; q < 8 && p + q < kc; ++q) _mm512_store_pd(dst + (p + q) * kCols + j, r[q]);
      }
    return;
  }
  for (std::int64_t p = 0; p < kc; ++p, b += ldb, dst += kCols)
    for (int v = 0; v < kVectors; ++v) {
      const __mmask8 lanes = first_lanes(std::clamp<std::int64_t>(cols - 8 * v, 0, 8));
      _mm512_store_pd(dst + 8 * v, _mm512_maskz_loadu_pd(lanes, b + 8 * v));
    }
}

// The R x kCols tile of c (R <= kRows) from a's panel `ap` and b's `bp`
// over kc: written to c, or added to it when `accumulate`. Each step of k
// loads a row of b's panel into 4 registers and broadcasts R elements of a:
// from a's packed panel, or with kInPlace from a as stored, its rows lda
// apart.
template <int R, bool kInPlace>
EQSAT_TARGET_avx512 void tile(std::int64_t kc, const double* __restrict ap, std::int64_t lda,
                              const double* __restrict bp, double* c, std::int64_t ldc,
                              bool accumulate) {
  __m512d acc[R][kVectors];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) acc[i][v] = _mm512_setzero_pd();
      // c's lines arrive while the tile is computed.
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v)
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 8 * v), _MM_HINT_T0);
#pragma GCC unroll 2
  for (std::int64_t p = 0; p < kc; ++p, ap += kInPlace ? 1 : kRows, bp += kCols) {
    __m512d row[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) row[v] = _mm512_load_pd(bp + 8 * v);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const __m512d x = _mm512_set1_pd(kInPlace ? ap[i * lda] : ap[i]);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) acc[i][v] = _mm512_fmadd_pd(x, row[v], acc[i][v]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      double* q = c + i * ldc + 8 * v;
      _mm512_storeu_pd(q, accumulate ? _mm512_add_pd(acc[i][v], _mm512_loadu_pd(q)) : acc[i][v]);
    }
}

using Tile = void (*)(std::int64_t, const double*, std::int64_t, const double*, double*,
                      std::int64_t, bool);

// tile<R> for R = 1..kRows, indexed by R - 1: a panel at a's edge
// computes only its rows.
template <bool kInPlace, int... R>
constexpr std::array<Tile, sizeof...(R)> tiles(std::integer_sequence<int, R...>) {
  return {&tile<R + 1, kInPlace>...};
}
constexpr auto kPackedTiles = tiles<false>(std::make_integer_sequence<int, kRows>());
constexpr auto kInPlaceTiles = tiles<true>(std::make_integer_sequence<int, kRows>());

// Operands of one product: op(a) m x k, op(b) k x n, c m x n.
struct Operands {
  bool ta, tb;
  const double* a;
  std::int64_t lda;
  const double* b;
  std::int64_t ldb;
  double* c;
  std::int64_t ldc;
};

// c[i0 .. i0+mc, j0 .. j0+nc) from slice [p0, p0+kc) of k, added to c
// when `add`.
void slice(const Operands& o, std::int64_t i0, std::int64_t mc, std::int64_t j0, std::int64_t nc,
           std::int64_t p0, std::int64_t kc, bool add, Packed& packed) {
  if (o.ta)
    for (std::int64_t i = 0; i < mc; i += kRows)
      pack_a_transposed(o.a + p0 * o.lda + i0 + i, o.lda, std::min<std::int64_t>(kRows, mc - i), kc,
                        packed.a.get() + i * kc);
  const auto& tiles = o.ta ? kPackedTiles : kInPlaceTiles;
  alignas(64) double edge[kRows * kCols];  // a tile at b's edge, before its columns are kept
  for (std::int64_t j = j0; j < j0 + nc; j += kCols) {
    const std::int64_t cols = std::min<std::int64_t>(kCols, j0 + nc - j);
    pack_b(o.tb, o.tb ? o.b + j * o.ldb + p0 : o.b + p0 * o.ldb + j, o.ldb, cols, kc,
           packed.b.get());
    for (std::int64_t i = 0; i < mc; i += kRows) {
      const std::int64_t rows = std::min<std::int64_t>(kRows, mc - i);
      const Tile run = tiles[rows - 1];
      double* ct = o.c + (i0 + i) * o.ldc + j;
      const double* ap = o.ta ? packed.a.get() + i * kc : o.a + (i0 + i) * o.lda + p0;
      if (cols == kCols) {
        run(kc, ap, o.lda, packed.b.get(), ct, o.ldc, add);
        continue;
      }
      run(kc, ap, o.lda, packed.b.get(), edge, kCols, false);
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t q = 0; q < cols; ++q)
          ct[r * o.ldc + q] = edge[r * kCols + q] + (add ? ct[r * o.ldc + q] : 0.0);
    }
  }
}

// Block by block of c (kBlockRows x kBlockCols, in L2 while every slice
// of k adds to it).
void gemm(const Operands& o, std::int64_t m, std::int64_t n, std::int64_t k, bool accumulate) {
  thread_local Packed packed;
  for (std::int64_t j0 = 0; j0 < n; j0 += kBlockCols)
    for (std::int64_t i0 = 0; i0 < m; i0 += kBlockRows)
      for (std::int64_t p0 = 0; p0 < k; p0 += kDepth)
        slice(o, i0, std::min(kBlockRows, m - i0), j0, std::min(kBlockCols, n - j0), p0,
              std::min(kDepth, k - p0), accumulate || p0 > 0, packed);
}

}  // namespace
#endif

bool own_dgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
               std::int64_t lda, const double* b, std::int64_t ldb, bool accumulate, double* c,
               std::int64_t ldc) {
#ifdef __x86_64__
  if (vector_level() < VectorLevel::Avx512) return false;
  if (k == 0 && !accumulate)
    for (std::int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0);
  gemm(Operands{ta, tb, a, lda, b, ldb, c, ldc}, m, n, k, accumulate);
  return true;
#else
  (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb;
  (void)accumulate, (void)c, (void)ldc;
  return false;
#endif
}

}  // namespace eqsat::backend::detail
