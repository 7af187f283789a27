// oneDNN's f32 GEMM (backend/onednn.hpp): a product whose right operand
// is held (a loop's non-sequence) computes from a pack made at its first
// call, one per shape, gives the values of the unpacked product, and the
// packs go with the last holder, so the matrix's new values count after.
#include "backend/onednn.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <random>
#include <vector>

using namespace eqsat::backend::detail;

namespace {

struct Product {
  bool ta, tb;
  std::int64_t m, n, k;
};

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// c = op(a) op(b) for p, with a and b stored as p's flags say (row-major,
// tight leading dimensions); nullopt without oneDNN.
std::optional<std::vector<float>> multiply(const Product& p, const std::vector<float>& a,
                                           const std::vector<float>& b) {
  std::vector<float> c(static_cast<std::size_t>(p.m * p.n));
  const std::int64_t lda = p.ta ? p.m : p.k, ldb = p.tb ? p.k : p.n;
  if (!onednn_sgemm(p.ta, p.tb, p.m, p.n, p.k, a.data(), lda, b.data(), ldb, c.data(), p.n))
    return std::nullopt;
  return c;
}

// The largest difference, relative to the largest magnitude of `want`.
double difference(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0, scale = 1e-30;
  for (std::size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, static_cast<double>(std::abs(got[i] - want[i])));
    scale = std::max(scale, static_cast<double>(std::abs(want[i])));
  }
  return worst / scale;
}

}  // namespace

TEST_CASE("a product by a held matrix uses one pack per shape and gives the unpacked values") {
  std::mt19937 rng(5);
  const Product products[] = {{false, false, 8, 512, 128}, {false, false, 16, 512, 128},
                              {false, true, 16, 256, 96},  {true, false, 40, 64, 64},
                              {true, true, 12, 130, 70},   {false, false, 3, 300, 77}};
  for (const Product& p : products) {
    INFO(p.m << " x " << p.k << " x " << p.n << (p.ta ? " ta" : "") << (p.tb ? " tb" : ""));
    const std::vector<float> a = random_floats(p.m * p.k, rng);
    std::vector<float> b = random_floats(p.k * p.n, rng);
    const auto plain = multiply(p, a, b);
    if (!plain) return;  // oneDNN is not installed
    REQUIRE(held_packs() == 0);
    std::size_t packs = 0;
    {
      HeldMatrix held(b.data(), b.size() * sizeof(float));
      const auto first = multiply(p, a, b);
      packs = held_packs();
      CHECK(packs <= 1);
      // oneDNN packs an LSTM step's recurrent weight (the first two).
      if (onednn_packs() && p.k == 128) CHECK(packs == 1);
      const auto again = multiply(p, a, b);
      CHECK(held_packs() == packs);  // the pack is made once
      CHECK(difference(*first, *plain) <= 1e-6);
      CHECK(*again == *first);
      // A product by another matrix is not packed.
      const std::vector<float> other = random_floats(p.k * p.n, rng);
      multiply(p, a, other);
      CHECK(held_packs() == packs);
    }
    CHECK(held_packs() == 0);
    // Released: the matrix may change, and products see its new values.
    for (float& x : b) x = -2 * x;
    CHECK(difference(*multiply(p, a, b), *plain) > 1);
  }
}

TEST_CASE("holders of the same matrix nest: its packs go with the last") {
  std::mt19937 rng(6);
  const Product p{false, false, 16, 512, 128};
  const std::vector<float> a = random_floats(p.m * p.k, rng), b = random_floats(p.k * p.n, rng);
  if (!multiply(p, a, b)) return;  // oneDNN is not installed
  auto outer = std::make_optional<HeldMatrix>(b.data(), b.size() * sizeof(float));
  std::size_t packs = 0;
  {
    HeldMatrix inner(b.data(), b.size() * sizeof(float));
    multiply(p, a, b);
    packs = held_packs();
  }
  CHECK(held_packs() == packs);  // the outer holder keeps them
  outer.reset();
  CHECK(held_packs() == 0);
}
