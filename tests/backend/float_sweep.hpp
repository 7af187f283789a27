// Sweeps of f32 kernels over the 2^32 floats, or a stride through them,
// for the tests of our f32 tanh and sigmoid (test_vector_tanh.cpp,
// test_vector_sigmoid.cpp): the worst error in ulps and where it is,
// whether NaN stays NaN, and whether results that round to x itself, ±1
// or 0 are exactly that.
#pragma once

#include "backend/vector_level.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace eqsat::test {

// An f32 kernel over an array (y[i] = f(x[i]) for i < n).
using FloatKernel = void (*)(const float* x, float* y, std::int64_t n);

// |got - exact| in units of the last place of the float nearest `exact`
// (at least the smallest subnormal).
inline double float_ulps(float got, long double exact) {
  const float rounded = static_cast<float>(exact);
  const float up = std::nextafter(std::abs(rounded), std::numeric_limits<float>::infinity());
  const long double unit = std::max<long double>(static_cast<long double>(up) - std::abs(rounded),
                                                 std::numeric_limits<float>::denorm_min());
  return static_cast<double>(std::abs(static_cast<long double>(got) - exact) / unit);
}

struct SweepResult {
  double worst = 0;  // ulps
  float where = 0;   // an argument with that error
  bool nan_kept = true;
  // Arguments whose exact result rounds to x, ±1 or ±0 that got anything
  // else (a zero's sign included), and the first of them.
  std::uint64_t inexact = 0;
  float first_inexact = 0;
};

// The worst error of `kernel` against `reference` (exact enough: a double
// reference is within 2^-28 ulp of float) over the floats with bit
// patterns first, first + step, ... below 2^32, a block at a time; a NaN
// argument must give NaN, and a result that rounds to x, ±1 or ±0 must be
// exactly that.
template <class Reference>
SweepResult sweep_floats(FloatKernel kernel, Reference reference, std::uint64_t first,
                         std::uint64_t step) {
  constexpr std::size_t kBlock = 4096;
  std::vector<float> x, y(kBlock);
  x.reserve(kBlock);
  SweepResult out;
  auto check = [&] {
    kernel(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) {
        out.nan_kept = out.nan_kept && std::isnan(y[i]);
        continue;
      }
      const long double exact = reference(x[i]);
      const double e = float_ulps(y[i], exact);
      if (e > out.worst) out.worst = e, out.where = x[i];
      const float want = static_cast<float>(exact);
      if ((want == x[i] || want == 1 || want == -1 || want == 0) &&
          std::bit_cast<std::uint32_t>(y[i]) != std::bit_cast<std::uint32_t>(want) &&
          out.inexact++ == 0)
        out.first_inexact = x[i];
    }
    x.clear();
  };
  for (std::uint64_t bits = first; bits < (std::uint64_t{1} << 32); bits += step) {
    x.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    if (x.size() == kBlock) check();
  }
  if (!x.empty()) check();
  return out;
}

// True when `kernel` gives each of `x` the same bits alone (the padded
// tail), at several offsets of a longer array, and as in one call over
// all of `x` (`all`): a result never depends on its position.
inline bool position_independent(FloatKernel kernel, const std::vector<float>& x,
                                 const std::vector<float>& all) {
  std::vector<float> longer(40, 0.5f), out(40);
  bool same = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    float alone = 0;
    kernel(&x[i], &alone, 1);
    same = same && std::bit_cast<std::uint32_t>(alone) == std::bit_cast<std::uint32_t>(all[i]);
    for (std::size_t at : {std::size_t{3}, std::size_t{16}, std::size_t{29}, std::size_t{39}}) {
      longer[at] = x[i];
      kernel(longer.data(), out.data(), 40);
      same = same && std::bit_cast<std::uint32_t>(out[at]) == std::bit_cast<std::uint32_t>(all[i]);
      longer[at] = 0.5f;
    }
  }
  return same;
}

// A vector level this CPU has and the kernel under test for it.
struct Level {
  backend::VectorLevel level;
  FloatKernel kernel;
};

// The AVX-512 and AVX2 levels this CPU has, each with its kernel.
inline std::vector<Level> cpu_levels([[maybe_unused]] FloatKernel avx512,
                                     [[maybe_unused]] FloatKernel avx2) {
  std::vector<Level> out;
#ifdef __x86_64__
  const auto cpu = backend::cpu_vector_level();
  if (cpu >= backend::VectorLevel::Avx512) out.push_back({backend::VectorLevel::Avx512, avx512});
  if (cpu >= backend::VectorLevel::Avx2) out.push_back({backend::VectorLevel::Avx2, avx2});
#endif
  return out;
}

// Whether `dispatch` (a vmath function) run at `level` gives the bits of
// `expected` on `x` (the kernel's own results): the dispatch adds nothing.
inline bool same_bits_at(backend::VectorLevel level, FloatKernel dispatch,
                         const std::vector<float>& x, const std::vector<float>& expected) {
  const backend::VectorLevel before = backend::vector_level();
  if (!backend::set_vector_level(level)) return false;
  std::vector<float> got(x.size());
  dispatch(x.data(), got.data(), static_cast<std::int64_t>(x.size()));
  backend::set_vector_level(before);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(expected[i]))
      return false;
  return true;
}

}  // namespace eqsat::test
