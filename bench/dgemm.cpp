// eqsat's own f64 GEMM (backend/dgemm_avx512.hpp) against OpenBLAS's
// cblas_dgemm, both on one thread, on the MLP gradient's products
// (bench/executor_numpy.py `mlp`: whole, and a thread's half when the
// executor splits them by rows), around the size where dot.cpp switches
// between them, and a few other shapes. The two alternate within each
// repetition, so a change of machine load hits both alike; the best
// repetition is kept. The peak is one thread's AVX-512 FMAs in registers.
//
//   bench_dgemm [--reps N]
//
// Prints one line per case: shape (m x n x k as op(a) m x k times op(b)
// k x n, t for an operand stored transposed), GFLOP/s of each, % of the
// peak, and own / OpenBLAS.
#include "backend/blas_start.hpp"
#include "backend/dgemm_avx512.hpp"

#include <cblas.h>
#include <fmt/format.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int);

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// f64 FMA throughput of this thread, flops per second: the best of 20 runs.
__attribute__((target("avx512f"))) double peak_one_thread() {
  double best = 0;
  for (int r = 0; r < 20; ++r) {
    constexpr int kIters = 1'000'000;
    __m512d acc[12];
    for (int j = 0; j < 12; ++j) acc[j] = _mm512_set1_pd(1.0 + j * 1e-3);
    const __m512d a = _mm512_set1_pd(0.999999), b = _mm512_set1_pd(1e-7);
    const double t0 = now();
    for (int i = 0; i < kIters; ++i)
#pragma GCC unroll 12
      for (int j = 0; j < 12; ++j) acc[j] = _mm512_fmadd_pd(acc[j], a, b);
    const double s = now() - t0;
    double sink = 0;
    for (int j = 0; j < 12; ++j) sink += _mm512_reduce_add_pd(acc[j]);
    if (sink == 42.0) std::cout << "";
    best = std::max(best, 12.0 * kIters * 8 * 2 / s);
  }
  return best;
}

struct Case {
  const char* label;
  std::int64_t m, n, k;
  bool ta, tb;
};

void run_case(const Case& c, int reps, double peak) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(c.m * c.k), b(c.k * c.n), mine(c.m * c.n), theirs(c.m * c.n);
  for (double& x : a) x = u(rng);
  for (double& x : b) x = u(rng);
  const std::int64_t lda = c.ta ? c.m : c.k, ldb = c.tb ? c.k : c.n;
  const auto blas = [&] {
    cblas_dgemm(CblasRowMajor, c.ta ? CblasTrans : CblasNoTrans, c.tb ? CblasTrans : CblasNoTrans,
                c.m, c.n, c.k, 1.0, a.data(), lda, b.data(), ldb, 0.0, theirs.data(), c.n);
  };
  const auto own = [&] {
    eqsat::backend::detail::own_dgemm(c.ta, c.tb, c.m, c.n, c.k, a.data(), lda, b.data(), ldb,
                                      false, mine.data(), c.n);
  };
  blas();
  own();
  double worst = 0;
  for (std::size_t i = 0; i < mine.size(); ++i)
    worst = std::max(worst, std::fabs(mine[i] - theirs[i]));
  const double flops = 2.0 * c.m * c.n * c.k;
  const int inner = std::max(1, static_cast<int>(2e7 / flops));
  double best_blas = INFINITY, best_own = INFINITY;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    for (int i = 0; i < inner; ++i) blas();
    best_blas = std::min(best_blas, (now() - t0) / inner);
    t0 = now();
    for (int i = 0; i < inner; ++i) own();
    best_own = std::min(best_own, (now() - t0) / inner);
  }
  const double g_blas = flops / best_blas / 1e9, g_own = flops / best_own / 1e9;
  std::cout << fmt::format(
      "{:<14} {:>5}{} x {:>5}{} x {:>5}  openblas {:6.1f} ({:3.0f}%)  own {:6.1f} ({:3.0f}%)  "
      "own/openblas {:.2f}  max diff {:.1e}\n",
      c.label, c.m, c.ta ? "t" : " ", c.n, c.tb ? "t" : " ", c.k, g_blas, 100 * g_blas / peak * 1e9,
      g_own, 100 * g_own / peak * 1e9, g_own / g_blas, worst);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 30;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
  openblas_set_num_threads(1);
  double one = 1, out = 0;
  if (!eqsat::backend::detail::own_dgemm(false, false, 1, 1, 1, &one, 1, &one, 1, false, &out, 1)) {
    std::cout << "no AVX-512 here: own_dgemm refuses every product\n";
    return 0;
  }
  const double peak = peak_one_thread();
  // blas_kernels() also links blas_start.cpp, which chooses OpenBLAS's
  // kernels by the CPU's features before OpenBLAS starts, as in eqsat.
  std::cout << fmt::format(
      "OpenBLAS kernels: {}; f64 peak, one thread: {:.1f} GFLOP/s (AVX-512 FMA in registers)\n",
      eqsat::backend::blas_kernels(), peak / 1e9);
  const Case cases[] = {
      {"mlp half", 128, 512, 512, false, false},  {"mlp half", 128, 512, 512, false, true},
      {"mlp half", 256, 512, 256, true, false},   {"mlp", 256, 512, 512, false, false},
      {"mlp", 256, 512, 512, false, true},        {"mlp", 512, 512, 256, true, false},
      {"small", 64, 64, 64, false, false},        {"small", 96, 96, 96, false, false},
      {"small", 128, 128, 128, false, false},     {"narrow", 512, 16, 64, false, false},
      {"lstm-step", 16, 1024, 512, false, false}, {"tall-skinny", 3200, 512, 64, false, false},
      {"square", 1000, 1000, 1000, false, false},
  };
  for (const Case& c : cases) run_case(c, reps, peak);
}
