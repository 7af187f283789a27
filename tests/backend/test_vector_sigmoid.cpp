// f32 sigmoid in f32 arithmetic at AVX-512 and AVX2 (vector_sigmoid.hpp):
// on a stride through every float it is within 1.2322 ulp of the exact
// value (the worst over all floats), exact where the result rounds to 0 or
// 1, 0.5 at ±0, NaN stays NaN, an element's result does not depend on its
// position, and vmath::sigmoid at each level gives the kernel's bits. The
// hidden `[.long]` case checks all 2^32 floats at each level (about a
// minute each).
#include "backend/vector_level.hpp"
#include "backend/vector_math.hpp"
#include "backend/vector_sigmoid.hpp"
#include "float_sweep.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace eqsat;

namespace {

using test::Level;

// The levels this CPU has, with their kernels.
std::vector<Level> levels() {
#ifdef __x86_64__
  return test::cpu_levels(backend::vmath::sigmoid_f32_avx512, backend::vmath::sigmoid_f32_avx2);
#else
  return {};
#endif
}

// sigmoid in T, without cancellation on either side.
template <class T>
T sigmoid(T x) {
  return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x));
}

// The worst error over all floats at each level (the hidden case measures
// it); the promise is 2 ulp.
constexpr double kWorst = 1.2322;

}  // namespace

TEST_CASE("f32 sigmoid is within its worst error on a stride of all floats at AVX-512 and AVX2") {
  for (const Level& l : levels()) {
    const test::SweepResult r = test::sweep_floats(
        l.kernel, [](float v) { return sigmoid(static_cast<long double>(v)); }, 12345, 3989);
    INFO(backend::vector_level_name(l.level) << ": worst " << r.worst << " ulp at " << r.where
                                             << ", first inexact " << r.first_inexact);
    CHECK(r.worst <= kWorst);
    CHECK(r.nan_kept);
    CHECK(r.inexact == 0);
  }
}

TEST_CASE("f32 sigmoid is exact at the edges, position independent and the dispatch's") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f,
                                -0.0f,
                                inf,
                                -inf,
                                std::numeric_limits<float>::quiet_NaN(),
                                -87.0f,
                                -87.5f,
                                -95.0f,
                                -103.0f,
                                -104.0f,
                                -200.0f,
                                17.0f,
                                17.5f,
                                87.0f,
                                100.0f,
                                std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(),
                                1e-30f,
                                -1e-30f,
                                -3.0f};
  for (const Level& l : levels()) {
    INFO(backend::vector_level_name(l.level));
    std::vector<float> all(x.size());
    l.kernel(x.data(), all.data(), static_cast<std::int64_t>(x.size()));
    CHECK(all[0] == 0.5f);
    CHECK(all[1] == 0.5f);
    CHECK(all[2] == 1.0f);
    CHECK(std::bit_cast<std::uint32_t>(all[3]) == 0u);
    CHECK(std::isnan(all[4]));
    // Far left: subnormal results (within an ulp of exp(x)), then 0.
    for (std::size_t i : {6, 7, 8}) {
      CHECK(all[i] > 0);
      CHECK(all[i] < std::numeric_limits<float>::min());
      CHECK(test::float_ulps(all[i], sigmoid(static_cast<long double>(x[i]))) <= 1);
    }
    for (std::size_t i : {9, 10, 16}) CHECK(std::bit_cast<std::uint32_t>(all[i]) == 0u);
    for (std::size_t i : {12, 13, 14, 15}) CHECK(all[i] == 1.0f);
    CHECK(all[11] < 1.0f);
    CHECK(all[17] == 0.5f);
    CHECK(all[18] == 0.5f);
    CHECK(test::position_independent(l.kernel, x, all));
    // vmath::sigmoid at this level: the same bits.
    CHECK(test::same_bits_at(l.level, static_cast<test::FloatKernel>(backend::vmath::sigmoid), x,
                             all));
  }
}

TEST_CASE("f32 sigmoid is within its worst error on every float at AVX-512 and AVX2", "[.long]") {
  for (const Level& l : levels()) {
    // In double (exp within 1 ulp of double, 2^-28 ulp of float): exact
    // enough, and far faster than long double.
    const test::SweepResult r = test::sweep_floats(
        l.kernel, [](float v) { return sigmoid(static_cast<double>(v)); }, 0, 1);
    INFO(backend::vector_level_name(l.level) << ": worst " << r.worst << " ulp at " << r.where
                                             << ", first inexact " << r.first_inexact);
    WARN(backend::vector_level_name(l.level) << ": worst " << r.worst << " ulp at " << r.where);
    CHECK(r.worst <= kWorst);
    CHECK(r.nan_kept);
    CHECK(r.inexact == 0);
  }
}
