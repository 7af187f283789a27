// eqsat's own f32 product (sgemm_rows_avx2.hpp; a few rows, or more with b
// in strips) against a double triple loop: shapes at and around its tile
// edges (4 rows, 3
// columns or 3 vectors of 8, blocks of 48 columns), k with and without a
// tail of k % 8, both layouts of b, beta 0 and 1, leading dimensions wider
// than the matrices, c's padding left alone; and every element's bits
// the same when the product is computed in blocks of rows or columns (a
// product split between threads), and when b is read from its strips
// (BStrips).
#include "backend/sgemm_rows_avx2.hpp"
#include "backend/vector_level.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace eqsat::backend;

namespace {

struct Product {
  bool tb, accumulate;
  std::int64_t m, n, k, lda, ldb, ldc;
  std::vector<float> a, b, c;

  Product(bool tb_, bool accumulate_, std::int64_t m_, std::int64_t n_, std::int64_t k_,
          std::int64_t pad, std::mt19937_64& rng)
      : tb(tb_), accumulate(accumulate_), m(m_), n(n_), k(k_) {
    lda = k + pad;
    ldb = (tb ? k : n) + pad;
    ldc = n + pad;
    std::uniform_real_distribution<float> u(-1, 1);
    a.resize(std::max<std::int64_t>(1, m * lda));
    b.resize(std::max<std::int64_t>(1, (tb ? n : k) * ldb));
    c.resize(std::max<std::int64_t>(1, m * ldc));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    for (float& x : c) x = u(rng);
  }

  // The product of rows r0.. r1 and columns c0.. c1 into `out` (c's
  // layout); b read from `strips` (all of b's, c0 a multiple of 8) if given.
  bool run(std::vector<float>& out, std::int64_t r0, std::int64_t r1, std::int64_t c0,
           std::int64_t c1, const float* strips = nullptr) const {
    const float* pb = tb ? b.data() + c0 * ldb : b.data() + c0;
    return detail::own_sgemm_rows(tb, r1 - r0, c1 - c0, k, a.data() + r0 * lda, lda, pb, ldb,
                                  accumulate, out.data() + r0 * ldc + c0, ldc,
                                  strips ? strips + c0 * k : nullptr);
  }

  double want(std::int64_t i, std::int64_t j) const {
    double s = accumulate ? c[i * ldc + j] : 0.0;
    for (std::int64_t p = 0; p < k; ++p)
      s += double(a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
    return s;
  }
};

// Sets the AVX2 level for a case; false, with a warning, on a CPU without
// it (the case's caller restores the level it saved).
bool use_avx2() {
  if (cpu_vector_level() < VectorLevel::Avx2) {
    WARN("this CPU has no AVX2: own_sgemm_rows declines every product");
    CHECK(cpu_vector_level() < VectorLevel::Avx2);
    return false;
  }
  REQUIRE(set_vector_level(VectorLevel::Avx2));
  return true;
}

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("own_sgemm_rows runs only at the AVX2 level, below and above it c is left alone") {
  const VectorLevel before = vector_level();
  std::mt19937_64 rng(1);
  const Product p(false, false, 3, 5, 7, 0, rng);
  std::vector<float> c = p.c;
  if (set_vector_level(VectorLevel::Sse2)) CHECK_FALSE(p.run(c, 0, 3, 0, 5));
  if (set_vector_level(VectorLevel::Avx512)) CHECK_FALSE(p.run(c, 0, 3, 0, 5));
  CHECK(same_bits(c, p.c));
  if (cpu_vector_level() >= VectorLevel::Avx2) {
    REQUIRE(set_vector_level(VectorLevel::Avx2));
    CHECK(p.run(c, 0, 3, 0, 5));
  }
  set_vector_level(before);
}

TEST_CASE("own_sgemm_rows gives the product, in blocks with the bits of the whole") {
  const VectorLevel before = vector_level();
  if (!use_avx2()) return;
  std::mt19937_64 rng(28);
  const std::int64_t rows[] = {1, 2, 3, 4, 5, 7, 8, 13, 32, 61};
  const std::int64_t cols[] = {1, 2, 3, 7, 8, 9, 24, 25, 47, 48, 49, 100};
  const std::int64_t depths[] = {0, 1, 7, 8, 9, 64, 101, 300};
  for (bool tb : {false, true})
    for (bool accumulate : {false, true})
      for (std::int64_t m : rows)
        for (std::int64_t n : cols)
          for (std::int64_t k : depths) {
            const Product p(tb, accumulate, m, n, k, (m + n + k) % 3, rng);
            INFO("tb " << tb << " accumulate " << accumulate << " " << m << " x " << k << " x "
                       << n);
            std::vector<float> whole = p.c;
            REQUIRE(p.run(whole, 0, m, 0, n));
            double worst = 0;
            for (std::int64_t i = 0; i < m; ++i)
              for (std::int64_t j = 0; j < n; ++j)
                worst = std::max(worst, std::abs(whole[i * p.ldc + j] - p.want(i, j)));
            // k terms of magnitude below 1, each rounded to f32.
            CHECK(worst <= 1e-6 * (double(k) + 2));
            // c's padding is left as it was.
            for (std::int64_t i = 0; i < m; ++i)
              for (std::int64_t j = n; j < p.ldc; ++j)
                CHECK(whole[i * p.ldc + j] == p.c[i * p.ldc + j]);
            // Rows split at r, then columns split at q: the same bits.
            const std::int64_t r = m / 2, q = n / 3 + 1;
            std::vector<float> split = p.c;
            REQUIRE(p.run(split, 0, r, 0, n));
            if (r < m) REQUIRE(p.run(split, r, m, 0, n));
            CHECK(same_bits(split, whole));
            split = p.c;
            REQUIRE(p.run(split, 0, m, 0, std::min(q, n)));
            if (q < n) REQUIRE(p.run(split, 0, m, q, n));
            CHECK(same_bits(split, whole));
            // b read from its strips, whole and split at a column multiple
            // of 8: the same bits. With tb the strips are ignored: they
            // are made from zeros there, which would change c if read.
            const std::vector<float> zeros(std::max<std::int64_t>(1, k * n), 0.0f);
            const float* plain = tb ? zeros.data() : p.b.data();
            const std::int64_t ld = tb ? n : p.ldb;
            detail::BStrips strips;
            const float* from = strips.of(plain, k, n, ld);
            CHECK(strips.of(plain, k, n, ld) == from);  // kept, not made again
            std::vector<float> packed = p.c;
            REQUIRE(p.run(packed, 0, m, 0, n, from));
            CHECK(same_bits(packed, whole));
            const std::int64_t q8 = n / 16 * 8;
            packed = p.c;
            REQUIRE(p.run(packed, 0, m, 0, q8, from));
            REQUIRE(p.run(packed, 0, m, q8, n, from));
            CHECK(same_bits(packed, whole));
          }
  set_vector_level(before);
}

TEST_CASE("BStrips copies b again once forgotten or for another b") {
  std::vector<float> b(3 * 10), other(3 * 10);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i), other[i] = -float(i);
  detail::BStrips strips;
  const float* s = strips.of(b.data(), 3, 10, 10);
  // Strip 1 holds columns 8 and 9 of each row, then zeros.
  CHECK(s[8 * 3 + 0] == 8);
  CHECK(s[8 * 3 + 1] == 9);
  CHECK(s[8 * 3 + 2] == 0);
  CHECK(s[8 * 3 + 8] == 18);
  CHECK(reinterpret_cast<std::uintptr_t>(s) % 64 == 0);
  b[0] = 100;
  CHECK(strips.of(b.data(), 3, 10, 10)[0] == 0);  // kept: b is promised unchanged
  strips.forget();
  CHECK(strips.of(b.data(), 3, 10, 10)[0] == 100);
  CHECK(strips.of(other.data(), 3, 10, 10)[1] == -1);
}

TEST_CASE("own_sgemm_rows sums a long product in blocks - its error does not grow with k") {
  const VectorLevel before = vector_level();
  if (!use_avx2()) return;
  // Terms in [0, 1): no cancellation, the relative error is the rounding
  // of the sums alone. Summed in one run of 4096 terms it reached 2.9e-6
  // relatively; in blocks of 128 (and OpenBLAS, oneDNN) below 5e-7.
  const std::int64_t m = 8, n = 64, k = 4096;
  std::mt19937_64 rng(33);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  detail::BStrips strips;
  for (const float* from : {static_cast<const float*>(nullptr), strips.of(b.data(), k, n, n)}) {
    REQUIRE(
        detail::own_sgemm_rows(false, m, n, k, a.data(), k, b.data(), n, false, c.data(), n, from));
    double worst = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t p = 0; p < k; ++p) s += double(a[i * k + p]) * double(b[p * n + j]);
        worst = std::max(worst, std::abs(c[i * n + j] - s) / s);
      }
    CHECK(worst < 1e-6);
  }
  set_vector_level(before);
}
