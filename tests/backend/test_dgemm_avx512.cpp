// eqsat's own AVX-512 DGEMM (dgemm_avx512.hpp) against a long double
// triple loop: odd shapes at and around its tile and block edges, every
// transpose, beta 0 and 1, leading dimensions wider than the matrices,
// k = 0, and c's padding left alone.
#include "backend/dgemm_avx512.hpp"
#include "backend/vector_level.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace eqsat::backend;

namespace {

// One product's operands, stored with `pad` extra columns a row, and c
// before and after.
struct Product {
  bool ta, tb, accumulate;
  std::int64_t m, n, k, pad;
  std::int64_t lda, ldb, ldc;
  std::vector<double> a, b, c, before;

  Product(bool ta_, bool tb_, bool accumulate_, std::int64_t m_, std::int64_t n_, std::int64_t k_,
          std::int64_t pad_, std::mt19937_64& rng)
      : ta(ta_), tb(tb_), accumulate(accumulate_), m(m_), n(n_), k(k_), pad(pad_) {
    lda = (ta ? m : k) + pad;
    ldb = (tb ? k : n) + pad;
    ldc = n + pad;
    std::uniform_real_distribution<double> u(-1, 1);
    // Stored shapes (rows x leading dimension), at least one element each.
    a.resize(std::max<std::int64_t>(1, (ta ? k : m) * lda));
    b.resize(std::max<std::int64_t>(1, (tb ? n : k) * ldb));
    c.resize(std::max<std::int64_t>(1, m * ldc));
    for (double& x : a) x = u(rng);
    for (double& x : b) x = u(rng);
    for (double& x : c) x = u(rng);
    before = c;
  }

  double op_a(std::int64_t i, std::int64_t p) const { return ta ? a[p * lda + i] : a[i * lda + p]; }
  double op_b(std::int64_t p, std::int64_t j) const { return tb ? b[j * ldb + p] : b[p * ldb + j]; }

  bool run() {
    return detail::own_dgemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, accumulate, c.data(),
                             ldc);
  }

  // The elements of c that differ from the exact product by more than
  // rounding allows (k + 2 roundings of the sum of |terms|), plus those
  // of its padding that changed.
  int wrong() const {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    int bad = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        long double exact = accumulate ? before[i * ldc + j] : 0.0L;
        long double size = std::fabs(exact);
        for (std::int64_t p = 0; p < k; ++p) {
          const long double term = static_cast<long double>(op_a(i, p)) * op_b(p, j);
          exact += term;
          size += std::fabs(term);
        }
        const double got = c[i * ldc + j];
        if (std::fabs(got - exact) > (k + 2) * eps * size) ++bad;
      }
      for (std::int64_t j = n; j < ldc; ++j) bad += c[i * ldc + j] != before[i * ldc + j];
    }
    return bad;
  }
};

// Whether this machine runs the kernel at all (else every product is
// refused, which the last test checks).
bool runs_here() {
  if (vector_level() >= VectorLevel::Avx512) return true;
  WARN("the CPU lacks AVX-512: own_dgemm refuses every product");
  return false;
}

}  // namespace

TEST_CASE("own_dgemm matches the exact product on odd shapes, every transpose and beta") {
  if (!runs_here()) return;
  std::mt19937_64 rng(28);
  // Around the 6 x 32 tile: a row or column short, exact, one over.
  const std::int64_t rows[] = {1, 2, 5, 6, 7, 13, 40};
  const std::int64_t cols[] = {1, 7, 31, 32, 33, 40};
  const std::int64_t depths[] = {0, 1, 3, 17, 40};
  for (const bool ta : {false, true})
    for (const bool tb : {false, true})
      for (const bool accumulate : {false, true})
        for (const std::int64_t m : rows)
          for (const std::int64_t n : cols)
            for (const std::int64_t k : depths) {
              Product p(ta, tb, accumulate, m, n, k, (m + n + k) % 3 == 0 ? 0 : 5, rng);
              INFO("ta " << ta << " tb " << tb << " accumulate " << accumulate << ", " << m << " x "
                         << n << " x " << k << ", pad " << p.pad);
              REQUIRE(p.run());
              CHECK(p.wrong() == 0);
            }
}

TEST_CASE("own_dgemm matches the exact product on random shapes up to 40") {
  if (!runs_here()) return;
  std::mt19937_64 rng(2028);
  std::uniform_int_distribution<std::int64_t> size(1, 40), pad(0, 9);
  for (int trial = 0; trial < 300; ++trial) {
    Product p(trial & 1, trial & 2, trial & 4, size(rng), size(rng), size(rng), pad(rng), rng);
    INFO("ta " << p.ta << " tb " << p.tb << " accumulate " << p.accumulate << ", " << p.m << " x "
               << p.n << " x " << p.k << ", pad " << p.pad);
    REQUIRE(p.run());
    CHECK(p.wrong() == 0);
  }
}

TEST_CASE("own_dgemm matches the exact product across its blocks of rows, columns and k") {
  if (!runs_here()) return;
  std::mt19937_64 rng(7);
  // Past 256 rows, 512 columns and two slices of 256 of k, with edges.
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      Product p(ta, tb, ta, 263, 545, 517, 3, rng);
      INFO("ta " << ta << " tb " << tb);
      REQUIRE(p.run());
      CHECK(p.wrong() == 0);
    }
}

TEST_CASE("own_dgemm refuses below AVX-512 and leaves c alone") {
  std::mt19937_64 rng(1);
  const VectorLevel saved = vector_level();
  REQUIRE(set_vector_level(VectorLevel::Avx2) == (cpu_vector_level() >= VectorLevel::Avx2));
  if (vector_level() < VectorLevel::Avx512) {
    Product p(false, false, false, 9, 40, 11, 0, rng);
    CHECK_FALSE(p.run());
    CHECK(p.c == p.before);
  }
  set_vector_level(saved);
}
