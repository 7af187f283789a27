// f32 tanh in f32 arithmetic at AVX-512 and AVX2 (vector_tanh.hpp): on a
// stride through every float it is within 0.7751 ulp of the exact value
// (the worst over all floats), exact where tanh rounds to x itself or ±1,
// at ±0 and ±inf, NaN stays NaN, an element's result does not depend on
// its position, and vmath::tanh at each level gives the kernel's bits.
// The hidden `[.long]` case checks all 2^32 floats at each level (about
// a minute each).
#include "backend/vector_level.hpp"
#include "backend/vector_math.hpp"
#include "backend/vector_tanh.hpp"
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
  return test::cpu_levels(backend::vmath::tanh_f32_avx512, backend::vmath::tanh_f32_avx2);
#else
  return {};
#endif
}

// The worst error over all floats at each level (the hidden case measures
// it); the promise is 1 ulp.
constexpr double kWorst = 0.7751;

}  // namespace

TEST_CASE("f32 tanh is within its worst error on a stride of all floats at AVX-512 and AVX2") {
  for (const Level& l : levels()) {
    const test::SweepResult r = test::sweep_floats(
        l.kernel, [](float v) { return std::tanh(static_cast<long double>(v)); }, 12345, 3989);
    INFO(backend::vector_level_name(l.level) << ": worst " << r.worst << " ulp at " << r.where
                                             << ", first inexact " << r.first_inexact);
    CHECK(r.worst <= kWorst);
    CHECK(r.nan_kept);
    CHECK(r.inexact == 0);
  }
}

TEST_CASE("f32 tanh is exact at the edges, position independent and the dispatch's") {
  const float inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::min();
  const std::vector<float> x = {0.0f,
                                -0.0f,
                                inf,
                                -inf,
                                std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::denorm_min(),
                                -tiny / 3,
                                -0x1p-13f,
                                0x1p-12f,
                                0.3999f,
                                0.4f,
                                -0.41f,
                                9.011f,
                                9.02f,
                                -9.1f,
                                20.0f,
                                std::numeric_limits<float>::max(),
                                0.25f,
                                -3.0f,
                                1e-30f};
  for (const Level& l : levels()) {
    INFO(backend::vector_level_name(l.level));
    std::vector<float> all(x.size());
    l.kernel(x.data(), all.data(), static_cast<std::int64_t>(x.size()));
    CHECK(std::bit_cast<std::uint32_t>(all[0]) == std::bit_cast<std::uint32_t>(0.0f));
    CHECK(std::bit_cast<std::uint32_t>(all[1]) == std::bit_cast<std::uint32_t>(-0.0f));
    CHECK(all[2] == 1.0f);
    CHECK(all[3] == -1.0f);
    CHECK(std::isnan(all[4]));
    CHECK(all[5] == std::numeric_limits<float>::denorm_min());
    CHECK(all[6] == -tiny / 3);
    CHECK(all[7] == -0x1p-13f);
    for (std::size_t i : {12, 13, 15, 16}) CHECK(all[i] == 1.0f);
    CHECK(all[14] == -1.0f);
    CHECK(all[19] == 1e-30f);
    CHECK(test::position_independent(l.kernel, x, all));
    // vmath::tanh at this level: the same bits.
    CHECK(
        test::same_bits_at(l.level, static_cast<test::FloatKernel>(backend::vmath::tanh), x, all));
  }
}

TEST_CASE("f32 tanh is within its worst error on every float at AVX-512 and AVX2", "[.long]") {
  for (const Level& l : levels()) {
    // The double tanh of the C library (within 2 ulp of double, 2^-28 ulp
    // of float) is exact enough, and far faster than long double.
    const test::SweepResult r = test::sweep_floats(
        l.kernel, [](float v) { return std::tanh(static_cast<double>(v)); }, 0, 1);
    INFO(backend::vector_level_name(l.level) << ": worst " << r.worst << " ulp at " << r.where
                                             << ", first inexact " << r.first_inexact);
    WARN(backend::vector_level_name(l.level) << ": worst " << r.worst << " ulp at " << r.where);
    CHECK(r.worst <= kWorst);
    CHECK(r.nan_kept);
    CHECK(r.inexact == 0);
  }
}
