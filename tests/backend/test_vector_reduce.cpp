// backend/vector_reduce.hpp: a row's maximum (NaN ignored) and its sum in
// the one documented order, at every vector level, over lengths that leave
// every kind of tail, against scalar loops.
#include "backend/vector_level.hpp"
#include "backend/vector_reduce.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace eqsat;

namespace {

constexpr backend::VectorLevel kLevels[] = {backend::VectorLevel::Sse2, backend::VectorLevel::Avx2,
                                            backend::VectorLevel::Avx512};

// The sum as documented: element i into partial sum i mod 16, then the
// partial sums pairwise (8 apart, 4 apart, 2, 1).
template <class T>
T documented_sum(const std::vector<T>& x, std::size_t n) {
  T acc[16] = {};
  for (std::size_t i = 0; i < n; ++i) acc[i % 16] += x[i];
  for (int w = 8; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEMPLATE_TEST_CASE("a row's maximum ignores NaN and its sum takes the documented order", "", float,
                   double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  const backend::VectorLevel saved = backend::vector_level();
  for (const std::size_t n : {0, 1, 7, 15, 16, 17, 31, 33, 64, 100, 1000, 1031}) {
    for (int form = 0; form < 4; ++form) {
      std::vector<T> x(n);
      for (T& v : x) v = static_cast<T>(u(rng));
      if (n > 0 && form == 1) x[n / 2] = std::numeric_limits<T>::quiet_NaN();
      if (n > 0 && form == 2) x[n - 1] = inf;
      if (form == 3) std::fill(x.begin(), x.end(), -inf);
      T want_max = -inf;
      for (T v : x)
        if (v > want_max) want_max = v;
      const T want_sum = documented_sum(x, n);
      for (const auto level : kLevels) {
        if (!backend::set_vector_level(level)) continue;
        INFO("level " << backend::vector_level_name(level) << ", n " << n << ", form " << form);
        CHECK(same_bits(backend::vmath::row_max(x.data(), static_cast<std::int64_t>(n)), want_max));
        const T got = backend::vmath::row_sum(x.data(), static_cast<std::int64_t>(n));
        CHECK((same_bits(got, want_sum) || (std::isnan(got) && std::isnan(want_sum))));
      }
      backend::set_vector_level(saved);
    }
  }
}
