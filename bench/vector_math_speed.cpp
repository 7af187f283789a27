// One thread's cost per element of the f64 vector exp, log, log1p, sin, cos, sincos and tanh
// at the AVX-512 and AVX2 levels: ours (backend/vector_math.hpp, which uses them
// there) beside the SLEEF u10 routines for that level they replace, called
// here in the same loop, on the same arguments, in the same run. Arrays of
// 4096 elements (in the L1 cache: the kernel's cost, not the memory's), best
// of ROUNDS rounds of 2000 passes each. Prints a markdown table; then one of
// f32 tanh and sigmoid (vmath::tanh, vmath::sigmoid at the level) beside
// SLEEF's f32 tanh (SLEEF has no sigmoid). On a CPU without AVX-512 the
// AVX2 rows alone.
//
//   bench_vector_math_speed [ROUNDS]      (default 7)
#include "backend/sleef_entry_points.hpp"
#include "backend/vector_level.hpp"
#include "backend/vector_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace eqsat;
using namespace eqsat::backend;  // SLEEF's routines as the backend calls them
                                 // (sleef_entry_points.hpp)

#ifdef EQSAT_VMATH_SLEEF
namespace {

constexpr std::int64_t kSize = 4096;
constexpr int kPasses = 2000;

// Nanoseconds an element of `run` over the array, best of `rounds`.
double ns_per_element(int rounds, const std::function<void()>& run) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int p = 0; p < kPasses; ++p) run();
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / (double(kPasses) * kSize));
  }
  return best;
}

// y = sleef(x), 16 floats at a time (kSize is a multiple of 16).
template <__m512 (*F)(__m512)>
EQSAT_TARGET_avx512 void sleef_loop_f32(const float* x, float* y) {
  for (std::int64_t i = 0; i < kSize; i += 16) _mm512_storeu_ps(y + i, F(_mm512_loadu_ps(x + i)));
}

// The same with SLEEF's AVX2 routines, 8 floats at a time.
template <__m256 (*F)(__m256)>
EQSAT_TARGET_avx2 void sleef_loop_f32_avx2(const float* x, float* y) {
  for (std::int64_t i = 0; i < kSize; i += 8) _mm256_storeu_ps(y + i, F(_mm256_loadu_ps(x + i)));
}

// Our f32 overloads, as function pointers.
void tanh_f32(const float* x, float* y, std::int64_t n) {
  backend::vmath::tanh(x, y, n);
}

void sigmoid_f32(const float* x, float* y, std::int64_t n) {
  backend::vmath::sigmoid(x, y, n);
}

// y = sleef(x), 8 lanes at a time (kSize is a multiple of 8).
template <__m512d (*F)(__m512d)>
EQSAT_TARGET_avx512 void sleef_loop(const double* x, double* y) {
  for (std::int64_t i = 0; i < kSize; i += 8) _mm512_storeu_pd(y + i, F(_mm512_loadu_pd(x + i)));
}

// The same with SLEEF's AVX2 routines, 4 lanes at a time.
template <__m256d (*F)(__m256d)>
EQSAT_TARGET_avx2 void sleef_loop_avx2(const double* x, double* y) {
  for (std::int64_t i = 0; i < kSize; i += 4) _mm256_storeu_pd(y + i, F(_mm256_loadu_pd(x + i)));
}

// sincos's second result (cos), for the rows of both sides; SLEEF's side
// of a sincos row is its sin and its cos.
std::vector<double> g_cos(kSize);

void ours_sincos(const double* x, double* y, std::int64_t n) {
  backend::vmath::sincos(x, y, g_cos.data(), n);
}

// SLEEF's sin into y and cos into g_cos, 8 lanes at a time (the backend
// calls no SLEEF sincos).
EQSAT_TARGET_avx512 void sleef_sincos(const double* x, double* y) {
  for (std::int64_t i = 0; i < kSize; i += 8) {
    const __m512d v = _mm512_loadu_pd(x + i);
    _mm512_storeu_pd(y + i, Sleef_sind8_u10avx512f(v));
    _mm512_storeu_pd(g_cos.data() + i, Sleef_cosd8_u10avx512f(v));
  }
}

// The same with SLEEF's AVX2 routines, 4 lanes at a time.
EQSAT_TARGET_avx2 void sleef_sincos_avx2(const double* x, double* y) {
  for (std::int64_t i = 0; i < kSize; i += 4) {
    const __m256d v = _mm256_loadu_pd(x + i);
    _mm256_storeu_pd(y + i, Sleef_sind4_u10avx2(v));
    _mm256_storeu_pd(g_cos.data() + i, Sleef_cosd4_u10avx2(v));
  }
}

}  // namespace
#endif

int main(int argc, char** argv) {
#ifdef EQSAT_VMATH_SLEEF
  int rounds = 7;
  if (argc > 2 ||
      (argc == 2 && ((rounds = std::atoi(argv[1])) < 1 || std::to_string(rounds) != argv[1]))) {
    fmt::print(stderr, "usage: bench_vector_math_speed [ROUNDS]   (a positive count, default 7)\n");
    return 2;
  }
  if (!backend::set_vector_level(backend::VectorLevel::Avx2)) {
    fmt::print(stderr, "bench_vector_math_speed: this CPU has no AVX2\n");
    return 1;
  }
  if (!backend::set_vector_level(backend::VectorLevel::Avx512))
    fmt::print("This CPU has no AVX-512: its rows are left out.\n\n");
  std::mt19937_64 rng(1);
  std::vector<double> x(kSize), y(kSize);
  struct Row {
    backend::VectorLevel level;
    const char* name;
    double lo, hi;
    void (*ours)(const double*, double*, std::int64_t);
    void (*sleef)(const double*, double*);
  };
  constexpr auto kAvx512 = backend::VectorLevel::Avx512;
  constexpr auto kAvx2 = backend::VectorLevel::Avx2;
  const Row rows[] = {
      {kAvx512, "exp", -1, 1, backend::vmath::exp, sleef_loop<Sleef_expd8_u10avx512f>},
      {kAvx512, "exp", -10, 10, backend::vmath::exp, sleef_loop<Sleef_expd8_u10avx512f>},
      {kAvx512, "sin", -1, 1, backend::vmath::sin, sleef_loop<Sleef_sind8_u10avx512f>},
      {kAvx512, "sin", -10, 10, backend::vmath::sin, sleef_loop<Sleef_sind8_u10avx512f>},
      {kAvx512, "cos", -1, 1, backend::vmath::cos, sleef_loop<Sleef_cosd8_u10avx512f>},
      {kAvx512, "cos", -10, 10, backend::vmath::cos, sleef_loop<Sleef_cosd8_u10avx512f>},
      {kAvx512, "sin", -1000, 1000, backend::vmath::sin, sleef_loop<Sleef_sind8_u10avx512f>},
      {kAvx512, "sincos", -10, 10, ours_sincos, sleef_sincos},
      {kAvx512, "log", 0.5, 2, backend::vmath::log, sleef_loop<Sleef_logd8_u10avx512f>},
      {kAvx512, "log", 0, 1000, backend::vmath::log, sleef_loop<Sleef_logd8_u10avx512f>},
      {kAvx512, "log1p", -0.5, 1, backend::vmath::log1p, sleef_loop<Sleef_log1pd8_u10avx512f>},
      {kAvx512, "tanh", -1, 1, backend::vmath::tanh, sleef_loop<Sleef_tanhd8_u10avx512f>},
      {kAvx512, "tanh", -10, 10, backend::vmath::tanh, sleef_loop<Sleef_tanhd8_u10avx512f>},
      {kAvx512, "tanh", -0.125, 0.125, backend::vmath::tanh, sleef_loop<Sleef_tanhd8_u10avx512f>},
      {kAvx2, "exp", -1, 1, backend::vmath::exp, sleef_loop_avx2<Sleef_expd4_u10avx2>},
      {kAvx2, "sin", -1, 1, backend::vmath::sin, sleef_loop_avx2<Sleef_sind4_u10avx2>},
      {kAvx2, "cos", -1, 1, backend::vmath::cos, sleef_loop_avx2<Sleef_cosd4_u10avx2>},
      {kAvx2, "sin", -1000, 1000, backend::vmath::sin, sleef_loop_avx2<Sleef_sind4_u10avx2>},
      {kAvx2, "sincos", -10, 10, ours_sincos, sleef_sincos_avx2},
      {kAvx2, "log", 0, 1000, backend::vmath::log, sleef_loop_avx2<Sleef_logd4_u10avx2>},
      {kAvx2, "log1p", -0.5, 1, backend::vmath::log1p, sleef_loop_avx2<Sleef_log1pd4_u10avx2>},
      {kAvx2, "tanh", -10, 10, backend::vmath::tanh, sleef_loop_avx2<Sleef_tanhd4_u10avx2>},
  };
  fmt::print(
      "| level | function | arguments | ours ns/element | SLEEF u10 ns/element | SLEEF / ours |\n");
  fmt::print("| --- | --- | --- | ---: | ---: | ---: |\n");
  for (const Row& row : rows) {
    if (!backend::set_vector_level(row.level)) continue;
    for (auto& v : x) v = std::uniform_real_distribution<double>(row.lo, row.hi)(rng);
    const double ours = ns_per_element(rounds, [&] { row.ours(x.data(), y.data(), kSize); });
    const double sleef = ns_per_element(rounds, [&] { row.sleef(x.data(), y.data()); });
    fmt::print("| {} | {} | [{}, {}] | {:.3f} | {:.3f} | {:.2f}x |\n",
               backend::vector_level_name(row.level), row.name, row.lo, row.hi, ours, sleef,
               sleef / ours);
  }
  struct RowF32 {
    backend::VectorLevel level;
    const char* name;
    float lo, hi;
    void (*ours)(const float*, float*, std::int64_t);
    void (*sleef)(const float*, float*);  // null: SLEEF has none
  };
  const RowF32 rows_f32[] = {
      {kAvx512, "tanh", -1, 1, tanh_f32, sleef_loop_f32<Sleef_tanhf16_u10avx512f>},
      {kAvx512, "tanh", -10, 10, tanh_f32, sleef_loop_f32<Sleef_tanhf16_u10avx512f>},
      {kAvx512, "tanh", -0.5, 0.5, tanh_f32, sleef_loop_f32<Sleef_tanhf16_u10avx512f>},
      {kAvx512, "sigmoid", -1, 1, sigmoid_f32, nullptr},
      {kAvx512, "sigmoid", -10, 10, sigmoid_f32, nullptr},
      {kAvx2, "tanh", -1, 1, tanh_f32, sleef_loop_f32_avx2<Sleef_tanhf8_u10avx2>},
      {kAvx2, "tanh", -10, 10, tanh_f32, sleef_loop_f32_avx2<Sleef_tanhf8_u10avx2>},
      {kAvx2, "sigmoid", -10, 10, sigmoid_f32, nullptr},
  };
  std::vector<float> xf(kSize), yf(kSize);
  fmt::print(
      "\n| level | f32 function | arguments | ours ns/element | SLEEF u10 ns/element | "
      "SLEEF / ours |\n");
  fmt::print("| --- | --- | --- | ---: | ---: | ---: |\n");
  for (const RowF32& row : rows_f32) {
    if (!backend::set_vector_level(row.level)) continue;
    for (auto& v : xf) v = std::uniform_real_distribution<float>(row.lo, row.hi)(rng);
    const double ours = ns_per_element(rounds, [&] { row.ours(xf.data(), yf.data(), kSize); });
    if (row.sleef == nullptr) {
      fmt::print("| {} | {} | [{}, {}] | {:.3f} | - | - |\n", backend::vector_level_name(row.level),
                 row.name, row.lo, row.hi, ours);
      continue;
    }
    const double sleef = ns_per_element(rounds, [&] { row.sleef(xf.data(), yf.data()); });
    fmt::print("| {} | {} | [{}, {}] | {:.3f} | {:.3f} | {:.2f}x |\n",
               backend::vector_level_name(row.level), row.name, row.lo, row.hi, ours, sleef,
               sleef / ours);
  }
  return 0;
#else
  (void)argc, (void)argv;
  fmt::print(stderr, "bench_vector_math_speed: built without SLEEF\n");
  return 1;
#endif
}
