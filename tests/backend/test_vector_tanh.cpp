// f32 tanh on AVX-512, computed in double (vector_tanh.hpp): on a stride
// through every float it is the correctly rounded value up to 2^-15 ulp
// (the bound its comment derives; the promise is 1 ulp), exact at ±0,
// ±inf and NaN, and an element's result does not depend on its position.
// The hidden `[.long]` case checks all 2^32 floats (about a minute).
#include "backend/vector_level.hpp"
#include "backend/vector_tanh.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace eqsat;

namespace {

// |got - exact| in units of the last place of the float nearest `exact`.
double ulps(float got, long double exact) {
  const float rounded = static_cast<float>(exact);
  const float up = std::nextafter(std::abs(rounded), std::numeric_limits<float>::infinity());
  const long double unit = std::max<long double>(static_cast<long double>(up) - std::abs(rounded),
                                                 std::numeric_limits<float>::denorm_min());
  return static_cast<double>(std::abs(static_cast<long double>(got) - exact) / unit);
}

// The worst error over the floats with bit patterns first, first + step,
// ... below 2^32, a block at a time; `reference` gives tanh exactly enough.
template <class Reference>
double worst_error(std::uint64_t first, std::uint64_t step, Reference reference, float& where) {
  constexpr std::size_t kBlock = 4096;
  std::vector<float> x, y(kBlock);
  x.reserve(kBlock);
  double worst = 0;
  auto check = [&] {
    backend::vmath::tanh_f32_avx512(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) {
        if (!std::isnan(y[i])) return false;
        continue;
      }
      const double e = ulps(y[i], reference(x[i]));
      if (e > worst) worst = e, where = x[i];
    }
    x.clear();
    return true;
  };
  for (std::uint64_t bits = first; bits < (std::uint64_t{1} << 32); bits += step) {
    x.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    if (x.size() == kBlock && !check()) return 1e9;
  }
  return x.empty() || check() ? worst : 1e9;
}

bool has_avx512() {
  return backend::cpu_vector_level() == backend::VectorLevel::Avx512;
}

}  // namespace

TEST_CASE("f32 tanh on AVX-512 is correctly rounded up to 2^-15 ulp on a stride of all floats") {
  if (!has_avx512()) return;  // this CPU lacks AVX-512
  float where = 0;
  const double worst = worst_error(
      12345, 3989, [](float v) { return std::tanh(static_cast<long double>(v)); }, where);
  INFO("worst " << worst << " ulp at " << where);
  CHECK(worst <= 0.5 + 0x1p-15);
}

TEST_CASE("f32 tanh on AVX-512 is exact at the edges and does not depend on position") {
  if (!has_avx512()) return;  // this CPU lacks AVX-512
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.0f,
                          -0.0f,
                          inf,
                          -inf,
                          std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::denorm_min(),
                          -0x1p-13f,
                          0x1p-12f,
                          9.5f,
                          -9.0f,
                          std::numeric_limits<float>::max(),
                          0.25f,
                          -3.0f};
  std::vector<float> all(x.size());
  backend::vmath::tanh_f32_avx512(x.data(), all.data(), static_cast<std::int64_t>(x.size()));
  CHECK(std::bit_cast<std::uint32_t>(all[0]) == std::bit_cast<std::uint32_t>(0.0f));
  CHECK(std::bit_cast<std::uint32_t>(all[1]) == std::bit_cast<std::uint32_t>(-0.0f));
  CHECK(all[2] == 1.0f);
  CHECK(all[3] == -1.0f);
  CHECK(std::isnan(all[4]));
  CHECK(all[5] == std::numeric_limits<float>::denorm_min());
  CHECK(all[6] == -0x1p-13f);
  CHECK(all[10] == 1.0f);
  // Each value alone (in the padded tail) and at every offset of a long
  // array gives the same bits.
  std::vector<float> longer(40, 0.5f), out(40);
  for (std::size_t i = 0; i < x.size(); ++i) {
    float alone = 0;
    backend::vmath::tanh_f32_avx512(&x[i], &alone, 1);
    INFO("tanh(" << x[i] << ")");
    CHECK(std::bit_cast<std::uint32_t>(alone) == std::bit_cast<std::uint32_t>(all[i]));
    for (std::size_t at : {std::size_t{3}, std::size_t{16}, std::size_t{29}}) {
      longer[at] = x[i];
      backend::vmath::tanh_f32_avx512(longer.data(), out.data(), 40);
      CHECK(std::bit_cast<std::uint32_t>(out[at]) == std::bit_cast<std::uint32_t>(all[i]));
      longer[at] = 0.5f;
    }
  }
}

TEST_CASE("f32 tanh on AVX-512 is correctly rounded up to 2^-15 ulp on every float",
          "[.long]") {
  if (!has_avx512()) return;  // this CPU lacks AVX-512
  // The double tanh of the C library (within 2 ulp of double, 2^-27 ulp of
  // float) is exact enough, and a hundred times faster than long double.
  float where = 0;
  const double worst = worst_error(
      0, 1, [](float v) { return std::tanh(static_cast<double>(v)); }, where);
  INFO("worst " << worst << " ulp at " << where);
  CHECK(worst <= 0.5 + 0x1p-15);
}
