// The largest error, in ulp, of the f64 vector exp, log, log1p, sin, cos and tanh
// (backend/vector_math.hpp) at the vector level in use, over COUNT random
// arguments per function and argument class, against the C library's long
// double expl, logl, log1pl, sinl, cosl and tanhl (64-bit mantissa: their own error is about
// 2^-11 of a double's ulp). Not a timing: backend/README.md ("Vector math")
// quotes its output. One thread.
//
//   bench_vector_math_ulps [COUNT]      (default 10^7 per class)
#include "backend/vector_level.hpp"
#include "backend/vector_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace eqsat;

namespace {

// |got - want| in units of the last place at want (as the test does); a
// mismatch in infinity (want rounded to double) or NaN counts 1e9.
double ulps(double got, long double want) {
  if (std::isnan(got) && std::isnan(want)) return 0;
  const double rounded = static_cast<double>(want);  // inf past the largest double
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : 1e9;
  const double up = std::nextafter(std::abs(rounded), std::numeric_limits<double>::infinity());
  const long double unit = std::max<long double>(static_cast<long double>(up) - std::abs(rounded),
                                                 std::numeric_limits<double>::denorm_min());
  return static_cast<double>(std::abs(static_cast<long double>(got) - want) / unit);
}

// A double with uniform random bits whose magnitude is at most `limit`.
double bits_below(std::mt19937_64& rng, double limit) {
  for (;;) {
    const double v = std::bit_cast<double>(rng());
    if (std::abs(v) <= limit) return v;
  }
}

struct Class {
  const char* name;
  std::function<double(std::mt19937_64&)> draw;
};

struct Function {
  const char* name;
  void (*kernel)(const double*, double*, std::int64_t);
  long double (*reference)(long double);
  std::vector<Class> classes;
};

std::uniform_real_distribution<double> uniform(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t count = 10000000;
  if (argc > 2 ||
      (argc == 2 && ((count = std::atoll(argv[1])) < 1 || std::to_string(count) != argv[1]))) {
    fmt::print(stderr,
               "usage: bench_vector_math_ulps [COUNT]   (a positive count, default 10000000)\n");
    return 2;
  }
  // Near k pi/2: k pi/2 rounded, moved by up to 2^20 ulp.
  const auto near_half_pi = [](std::mt19937_64& rng, double kmax) {
    const auto k = static_cast<double>(std::uniform_int_distribution<std::int64_t>(
        -static_cast<std::int64_t>(kmax), static_cast<std::int64_t>(kmax))(rng));
    double v = static_cast<double>(k * 1.5707963267948966192313216916397514L);
    const int steps = std::uniform_int_distribution<int>(-(1 << 20), 1 << 20)(rng);
    for (int s = 0; s < std::abs(steps) % 64; ++s)
      v = std::nextafter(v, steps < 0 ? -INFINITY : INFINITY);
    return v + static_cast<double>(steps) * 0x1p-60;
  };
  const std::vector<Class> trig = {
      {"bits, abs(x) <= 2^20", [](auto& r) { return bits_below(r, 0x1p20); }},
      {"[-1000, 1000]", [](auto& r) { return uniform(-1000, 1000)(r); }},
      {"[-10, 10]", [](auto& r) { return uniform(-10, 10)(r); }},
      {"near k pi/2, abs(k) <= 600", [&](auto& r) { return near_half_pi(r, 600); }},
      {"near k pi/2, abs(k) <= 6e5", [&](auto& r) { return near_half_pi(r, 6e5); }},
      {"bits, any double", [](auto& r) { return std::bit_cast<double>(r()); }},
  };
  const std::vector<Function> functions = {
      {"exp",
       backend::vmath::exp,
       [](long double x) { return std::exp(x); },
       {
           {"bits, abs(x) <= 708", [](auto& r) { return bits_below(r, 708); }},
           {"[-708, 708]", [](auto& r) { return uniform(-708, 708)(r); }},
           {"[-10, 10]", [](auto& r) { return uniform(-10, 10)(r); }},
           {"[708, 709.8] (overflow)", [](auto& r) { return uniform(708, 709.8)(r); }},
           {"[709.78271, 709.782713] (the largest finite)",
            [](auto& r) { return uniform(709.78271, 709.782713)(r); }},
           {"[-746, -708] (subnormal results)", [](auto& r) { return uniform(-746, -708)(r); }},
           {"bits, any double", [](auto& r) { return std::bit_cast<double>(r()); }},
       }},
      {"log",
       backend::vmath::log,
       [](long double x) { return std::log(x); },
       {
           {"bits, positive", [](auto& r) { return std::bit_cast<double>(r() >> 1); }},
           {"[0, 10]", [](auto& r) { return uniform(0, 10)(r); }},
           {"[0.70, 0.72] (z wraps at sqrt(2)/2)", [](auto& r) { return uniform(0.70, 0.72)(r); }},
           {"[1.40, 1.42] (and at sqrt(2))", [](auto& r) { return uniform(1.40, 1.42)(r); }},
           {"[0.999, 1.001]", [](auto& r) { return uniform(0.999, 1.001)(r); }},
           {"bits, any double", [](auto& r) { return std::bit_cast<double>(r()); }},
       }},
      {"log1p",
       backend::vmath::log1p,
       [](long double x) { return std::log1p(x); },
       {
           {"bits, positive", [](auto& r) { return std::bit_cast<double>(r() >> 1); }},
           {"[-1, 1]", [](auto& r) { return uniform(-1, 1)(r); }},
           {"[-1, -0.5]", [](auto& r) { return uniform(-1, -0.5)(r); }},
           {"[-1e-8, 1e-8] (1 + x rounds)", [](auto& r) { return uniform(-1e-8, 1e-8)(r); }},
           {"[1, 1000]", [](auto& r) { return uniform(1, 1000)(r); }},
           {"bits, any double", [](auto& r) { return std::bit_cast<double>(r()); }},
       }},
      {"sin", backend::vmath::sin, [](long double x) { return std::sin(x); }, trig},
      {"cos", backend::vmath::cos, [](long double x) { return std::cos(x); }, trig},
      {"tanh",
       backend::vmath::tanh,
       [](long double x) { return std::tanh(x); },
       {
           {"bits, abs(x) <= 20", [](auto& r) { return bits_below(r, 20); }},
           {"[-20, 20]", [](auto& r) { return uniform(-20, 20)(r); }},
           {"[-1, 1]", [](auto& r) { return uniform(-1, 1)(r); }},
           {"[0.125, 0.25] (the quotient's worst)",
            [](auto& r) { return uniform(0.125, 0.25)(r); }},
           {"[0, 0.125] (the series)", [](auto& r) { return uniform(0, 0.125)(r); }},
           {"[18, 21] (rounding to 1)", [](auto& r) { return uniform(18, 21)(r); }},
           {"bits, any double", [](auto& r) { return std::bit_cast<double>(r()); }},
       }},
  };
  fmt::print("level {}, {} arguments per class\n\n",
             backend::vector_level_name(backend::vector_level()), count);
  fmt::print("| function | arguments | max ulp | at |\n| --- | --- | ---: | --- |\n");
  constexpr std::int64_t kBlock = 1 << 16;
  std::vector<double> x(kBlock), y(kBlock);
  for (const Function& f : functions) {
    for (const Class& c : f.classes) {
      std::mt19937_64 rng(2026);
      double worst = 0, worst_x = 0;
      for (std::int64_t done = 0; done < count; done += kBlock) {
        const std::int64_t m = std::min(kBlock, count - done);
        for (std::int64_t i = 0; i < m; ++i) x[i] = c.draw(rng);
        f.kernel(x.data(), y.data(), m);
        for (std::int64_t i = 0; i < m; ++i) {
          const double e = ulps(y[i], f.reference(x[i]));
          if (e > worst) worst = e, worst_x = x[i];
        }
      }
      fmt::print("| {} | {} | {:.4f} | {:a} |\n", f.name, c.name, worst, worst_x);
      std::fflush(stdout);
    }
  }
}
