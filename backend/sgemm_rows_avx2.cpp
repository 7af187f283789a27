// A register tile of c: kRows rows by three accumulators (up to 2 rows by
// four: `across`). With b stored
// transposed (n x k) an accumulator is one element of c, 8 lanes along k
// (a step of 8 along k loads kRows vectors of a and 3 of b for 12 FMAs),
// its lanes summed in a fixed order at the end, then the last k % 8 terms
// one by one. With b stored as is (k x n) an accumulator is 8 elements of
// a row of c, its terms added in order of k in blocks of kBlockK, each
// block's sum added to c (a step broadcasts kRows elements of a and loads
// 3 vectors of b for 12 FMAs). Either way an
// element's sum does not depend on the tile or block it falls in. c is
// computed in column blocks whose rows (or columns) of b stay in L1 while
// every panel of rows of a passes them; b stored k x n may be read from a
// copy in strips (BStrips), the same loads from other addresses.
#include "sgemm_rows_avx2.hpp"

#include "buffer_pool.hpp"
#include "vector_level.hpp"

#ifdef __x86_64__
#include <immintrin.h>
#endif

#include <algorithm>

namespace eqsat::backend::detail {

#ifdef __x86_64__
namespace {

constexpr int kRows = 4;
// Accumulators a row of a tile of R rows: at least 8 in all, the FMAs in
// flight that keep both FMA pipes busy (4 cycles each), and at most 13
// registers with the vectors of b and a that feed them.
constexpr int across(int rows) {
  return rows <= 2 ? 4 : 3;
}
// 48 columns: 48 x 128 floats of b (24 KB) at an LSTM step's k = 128. A
// product of at most 2 rows reads each of b's elements once: one block.
constexpr std::int64_t kBlockCols = 48;
// With b stored as is, a tile sums k in blocks of 128: each block's terms
// in order in its registers, then the block's sum added to c. The rounding
// error then grows with the number of blocks rather than with k, as in the
// libraries' kernels: a product of 4096 terms in [0, 1) erred by 2.9e-6
// relatively summed in one run, by less than 1e-6 in blocks
// (test_sgemm_rows_avx2.cpp). The tile goes on through b's column block
// from one block to the next: made one block at a time over every panel
// of rows, the product ran slower.
constexpr std::int64_t kBlockK = 128;

struct Operands {
  bool tb;
  std::int64_t k;
  const float* a;
  std::int64_t lda;
  const float* b;
  std::int64_t ldb;
  bool accumulate;
  float* c;
  std::int64_t ldc;
  const float* strips;  // b in BStrips, or null
};

// The 8 lanes of v summed: halves, then pairs, then the last two.
EQSAT_TARGET_avx2 inline float lane_sum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// A tile's accumulators set to zero. Every loop over them is unrolled:
// GCC keeps an array of vectors in registers only then.
template <int R, int C>
[[gnu::always_inline]] EQSAT_TARGET_avx2 inline void zero(__m256 (&acc)[R][C]) {
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int q = 0; q < C; ++q) acc[r][q] = _mm256_setzero_ps();
}

// One step along k: row r of the tile adds a's vector at a0 + r lda (or
// its element there broadcast, kBroadcast) times each of bv.
template <int R, int C, bool kBroadcast>
[[gnu::always_inline]] EQSAT_TARGET_avx2 inline void fma_step(__m256 (&acc)[R][C],
                                                              const __m256 (&bv)[C],
                                                              const float* a0, std::int64_t lda) {
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    const __m256 av =
        kBroadcast ? _mm256_broadcast_ss(a0 + r * lda) : _mm256_loadu_ps(a0 + r * lda);
#pragma GCC unroll 4
    for (int q = 0; q < C; ++q) acc[r][q] = _mm256_fmadd_ps(av, bv[q], acc[r][q]);
  }
}

// Rows i.. i + R, columns j.. j + C of c, b stored n x k.
template <int R, int C>
EQSAT_TARGET_avx2 void tile_transposed(const Operands& o, std::int64_t i, std::int64_t j) {
  __m256 acc[R][C];
  zero(acc);
  const float* ar = o.a + i * o.lda;
  const float* bc = o.b + j * o.ldb;
  const std::int64_t k = o.k, lda = o.lda, ldb = o.ldb, kv = k / 8 * 8;
  for (std::int64_t p = 0; p < kv; p += 8) {
    __m256 bv[C];
#pragma GCC unroll 4
    for (int q = 0; q < C; ++q) bv[q] = _mm256_loadu_ps(bc + q * ldb + p);
    fma_step<R, C, false>(acc, bv, ar + p, lda);
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int q = 0; q < C; ++q) {
      float s = lane_sum(acc[r][q]);
      for (std::int64_t p = kv; p < o.k; ++p) s += ar[r * o.lda + p] * bc[q * o.ldb + p];
      float& out = o.c[(i + r) * o.ldc + j + q];
      out = o.accumulate ? out + s : s;
    }
}

// Where a tile reads b stored k x n: its vector q at step p along k lies
// at at + p * along + q * across (in place, or in BStrips).
struct BRead {
  const float* at;
  std::int64_t along, across;
};

// b's vectors from column j (a multiple of 8), in place or in strips.
inline BRead b_from(const Operands& o, std::int64_t j) {
  if (o.strips) return {o.strips + j * o.k, 8, 8 * o.k};
  return {o.b + j, o.ldb, 8};
}

// Rows i.. i + R of c and C vectors of 8 columns from j, b stored k x n;
// the last vector keeps the lanes of `last` (a row's end).
template <int R, int C, bool kPartial>
EQSAT_TARGET_avx2 void tile_as_is(const Operands& o, std::int64_t i, std::int64_t j, __m256i last) {
  __m256 acc[R][C];
  const float* ar = o.a + i * o.lda;
  const BRead br = b_from(o, j);
  const float* bp = br.at;
  const std::int64_t k = o.k, lda = o.lda;
  // Blocks of k (one when k is 0: c is written all the same), each summed
  // in the registers and added to c.
  for (std::int64_t k0 = 0; k0 == 0 || k0 < k; k0 += kBlockK) {
    zero(acc);
    const std::int64_t k1 = std::min(k, k0 + kBlockK);
    for (std::int64_t p = k0; p < k1; ++p, bp += br.along) {
      __m256 bv[C];
#pragma GCC unroll 4
      for (int q = 0; q < C; ++q)
        bv[q] = kPartial ? _mm256_maskload_ps(bp + q * br.across, last)
                         : _mm256_loadu_ps(bp + q * br.across);
      fma_step<R, C, true>(acc, bv, ar + p, lda);
    }
    const bool add = o.accumulate || k0 > 0;
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* out = o.c + (i + r) * o.ldc + j;
#pragma GCC unroll 4
      for (int q = 0; q < C; ++q) {
        __m256 v = acc[r][q];
        if constexpr (kPartial) {
          if (add) v = _mm256_add_ps(_mm256_maskload_ps(out + 8 * q, last), v);
          _mm256_maskstore_ps(out + 8 * q, last, v);
        } else {
          if (add) v = _mm256_add_ps(_mm256_loadu_ps(out + 8 * q), v);
          _mm256_storeu_ps(out + 8 * q, v);
        }
      }
    }
  }
}

// Rows i.. i + R, columns j0.. j1 of c.
template <int R>
EQSAT_TARGET_avx2 void row_panel(const Operands& o, std::int64_t i, std::int64_t j0,
                                 std::int64_t j1) {
  constexpr int kAcross = across(R);
  std::int64_t j = j0;
  if (o.tb) {
    for (; j + kAcross <= j1; j += kAcross) tile_transposed<R, kAcross>(o, i, j);
    for (; j < j1; ++j) tile_transposed<R, 1>(o, i, j);
    return;
  }
  const __m256i all = _mm256_set1_epi32(-1);
  for (; j + 8 * kAcross <= j1; j += 8 * kAcross) tile_as_is<R, kAcross, false>(o, i, j, all);
  for (; j + 8 <= j1; j += 8) tile_as_is<R, 1, false>(o, i, j, all);
  if (j < j1)
    tile_as_is<R, 1, true>(o, i, j,
                           _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(j1 - j)),
                                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}

}  // namespace
#endif

bool own_sgemm_rows(bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                    std::int64_t lda, const float* b, std::int64_t ldb, bool accumulate, float* c,
                    std::int64_t ldc, const float* strips) {
#ifdef __x86_64__
  if (vector_level() != VectorLevel::Avx2) return false;
  const Operands o{tb, k, a, lda, b, ldb, accumulate, c, ldc, tb ? nullptr : strips};
  const std::int64_t block = m <= 2 ? std::max<std::int64_t>(n, 1) : kBlockCols;
  for (std::int64_t j0 = 0; j0 < n; j0 += block) {
    const std::int64_t j1 = std::min(n, j0 + block);
    std::int64_t i = 0;
    for (; i + kRows <= m; i += kRows) row_panel<kRows>(o, i, j0, j1);
    switch (m - i) {
      case 3:
        row_panel<3>(o, i, j0, j1);
        break;
      case 2:
        row_panel<2>(o, i, j0, j1);
        break;
      case 1:
        row_panel<1>(o, i, j0, j1);
        break;
      default:
        break;
    }
  }
  return true;
#else
  (void)tb, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)accumulate;
  (void)c, (void)ldc, (void)strips;
  return false;
#endif
}

const float* BStrips::of(const float* b, std::int64_t k, std::int64_t n, std::int64_t ldb) {
  if (source_ == b && k_ == k && n_ == n && ldb_ == ldb) return start_;
  const std::int64_t strips = (n + 7) / 8;
  constexpr std::int64_t kLineFloats = 16;
  const auto floats = static_cast<std::size_t>(strips * 8 * k + kLineFloats);
  if (pool_ && floats > data_.capacity() &&
      !pool_->try_charge((floats - data_.capacity()) * sizeof(float)))
    return nullptr;
  data_.assign(floats, 0.0f);
  const auto misaligned = reinterpret_cast<std::uintptr_t>(data_.data()) % 64 / sizeof(float);
  float* out = data_.data() + (misaligned ? kLineFloats - misaligned : 0);
  for (std::int64_t s = 0; s < strips; ++s) {
    const std::int64_t width = std::min<std::int64_t>(8, n - 8 * s);
    float* strip = out + s * 8 * k;
    for (std::int64_t p = 0; p < k; ++p) std::copy_n(b + p * ldb + 8 * s, width, strip + p * 8);
  }
  start_ = out;
  source_ = b;
  k_ = k, n_ = n, ldb_ = ldb;
  return start_;
}

}  // namespace eqsat::backend::detail
