// Matrix products against the machine's peak: OpenBLAS, oneDNN (dnnl_sgemm,
// f32 only), BLIS (when libblis.so.4 is installed: loaded at run time, its
// typed API, so its BLAS symbols never meet OpenBLAS's) and eqsat's own
// `dot` (the executor, whatever it chose; `eqsat-weights`: b a constant of
// the program, as a layer's weights are) on small, square, tall-skinny and
// batched shapes, f32 and f64, all threads. The best of the repetitions is
// kept. The libraries split on eqsat's threads (and eqsat) alternate within
// each repetition, so a change of machine load hits them alike. A library on
// threads of its own (OpenBLAS's, oneDNN's OpenMP, BLIS's) leaves them
// spinning after its call (OpenBLAS's yield the core for 2^28 cycles,
// about 0.1 s), and whatever is timed next shares the cores with them
// (eqsat's 16 x 128 x 512 f32 product measured 15 GFLOP/s right after
// OpenBLAS's, 100 with OpenBLAS's threads told to sleep at once): those
// libraries are timed after the others, each in a block of its own, with a
// pause after each block. The peak is the larger of two: the nominal one, T
// threads x FLOPS_PER_CYCLE f32 flops x the clock /proc/cpuinfo reports
// (32 on Zen 4: two 256-bit FMA pipes; 64 on AVX-512 Intel server cores),
// and the measured one, each thread running independent FMAs of the widest
// kind the CPU has, AVX-512 or AVX2 (12 accumulators, no memory traffic; a
// loaded machine measures it low).
//
//   bench_gemm [--reps N] [--threads T] [--flops-per-cycle F]
//
// Prints one line per case: shape, dtype, GFLOP/s per library, % of peak.
#include "backend/program.hpp"
#include "backend/thread_pool.hpp"
#include "backend/vector_level.hpp"
#include "ops/graph_parser.hpp"
#include "ops/term.hpp"

#include <cblas.h>
#include <dlfcn.h>
#include <dnnl.h>
#include <fmt/format.h>
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <thread>
#include <vector>

extern "C" void openblas_set_num_threads(int);

using namespace eqsat;

namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// FMA throughput of one thread, flops per second, f32 (f64: half): 12
// independent accumulators of the widest FMA the CPU has, AVX-512 or AVX2.
// The two loops are spelled out: intrinsics inline only into a function
// compiled for their instruction set.
template <class Vec>
double rate_of(const std::chrono::steady_clock::time_point t0, const Vec* acc, int iters) {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  float lanes[sizeof(Vec) / sizeof(float)];
  float sink = 0;
  for (int j = 0; j < 12; ++j) {
    std::memcpy(lanes, &acc[j], sizeof lanes);
    for (float x : lanes) sink += x;
  }
  if (sink == 42.0f) std::cout << "";
  return 12.0 * iters * (sizeof(Vec) / sizeof(float)) * 2 / s;
}

constexpr int kFmaIters = 2'000'000;

__attribute__((target("avx512f"))) double fma_flops_avx512() {
  __m512 acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = _mm512_set1_ps(1.0f + j * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kFmaIters; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
  return rate_of(t0, acc, kFmaIters);
}

__attribute__((target("avx2,fma"))) double fma_flops_avx2() {
  __m256 acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = _mm256_set1_ps(1.0f + j * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kFmaIters; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
  return rate_of(t0, acc, kFmaIters);
}

bool has_avx512() {
  return backend::cpu_vector_level() >= backend::VectorLevel::Avx512;
}

// 0 on a CPU below AVX2: the nominal peak stands alone.
double fma_flops_one_thread() {
  if (has_avx512()) return fma_flops_avx512();
  return backend::cpu_vector_level() >= backend::VectorLevel::Avx2 ? fma_flops_avx2() : 0;
}

double peak_f32(int threads) {
  std::vector<double> rates(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&rates, t] {
      // The best of 20 short runs: on a shared machine some get a whole core.
      for (int r = 0; r < 20; ++r) rates[t] = std::max(rates[t], fma_flops_one_thread());
    });
  for (auto& p : pool) p.join();
  double sum = 0;
  for (double r : rates) sum += r;
  return sum;
}

// The clock /proc/cpuinfo reports for the first core, in Hz (0 if none).
double cpuinfo_hz() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("cpu MHz", 0) == 0) return std::stod(line.substr(line.find(':') + 1)) * 1e6;
  return 0;
}

// BLIS's typed gemm: bli_?gemm(transa, transb, m, n, k, alpha, a, rsa, csa,
// b, rsb, csb, beta, c, rsc, csc), strides in elements.
using BliGemm = void (*)(int, int, long, long, long, const void*, const void*, long, long,
                         const void*, long, long, const void*, void*, long, long);
struct Blis {
  BliGemm sgemm = nullptr, dgemm = nullptr;
  Blis(int threads) {
    void* h = dlopen("libblis.so.4", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) return;
    sgemm = reinterpret_cast<BliGemm>(dlsym(h, "bli_sgemm"));
    dgemm = reinterpret_cast<BliGemm>(dlsym(h, "bli_dgemm"));
    if (auto set = reinterpret_cast<void (*)(long)>(dlsym(h, "bli_thread_set_num_threads")))
      set(threads);
  }
};

struct Case {
  const char* label;
  std::int64_t batch, m, k, n;
};

template <class T>
void run_case(const Case& c, int reps, double peak, Blis& blis) {
  constexpr bool f64 = std::is_same_v<T, double>;
  const std::int64_t sa = c.m * c.k, sb = c.k * c.n, sc = c.m * c.n;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  ops::Array a(f64 ? ops::DType::F64 : ops::DType::F32, {c.batch, c.m, c.k});
  ops::Array b(a.dtype(), {c.batch, c.k, c.n});
  for (T& v : a.span<T>()) v = static_cast<T>(u(rng));
  for (T& v : b.span<T>()) v = static_cast<T>(u(rng));
  std::vector<T> out(c.batch * sc);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = out.data();
  const std::string dt = f64 ? "f64" : "f32";
  const ops::Graph g = ops::parse_graph(
      fmt::format("(input a ({} {} {} {}))\n(input b ({} {} {} {}))\n(output (dot a b))\n", dt,
                  c.batch, c.m, c.k, dt, c.batch, c.k, c.n),
      "gemm.eg", ".");
  backend::Program program = backend::compile(g);
  const std::vector<ops::Array> inputs{a, b};
  // The same product with b a constant of the program, as a layer's
  // weights are: eqsat may keep a copy of b between runs (BStrips,
  // backend/sgemm_rows_avx2.hpp), as onnxruntime packs its initializers.
  ops::Graph weights_graph = g;
  weights_graph.inputs.resize(1);
  weights_graph.outputs[0].term =
      ops::Term::make(ops::OpKind::Dot, {}, {g.inputs[0], ops::Term::constant(b)});
  backend::Program weights = backend::compile(weights_graph);
  const std::vector<ops::Array> weights_inputs{a};

  std::vector<std::pair<std::string, std::function<void()>>> libs;
  // Those on threads of their own (see the top of the file).
  const std::set<std::string> own_threads{"openblas", "onednn", "blis"};
  // Each entry sets OpenBLAS's thread count it needs: the count is global.
  libs.emplace_back("openblas", [&] {
    openblas_set_num_threads(backend::num_threads());
    for (std::int64_t i = 0; i < c.batch; ++i) {
      if constexpr (f64)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c.m, c.n, c.k, 1.0, pa + i * sa, c.k,
                    pb + i * sb, c.n, 0.0, pc + i * sc, c.n);
      else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c.m, c.n, c.k, 1.0f, pa + i * sa,
                    c.k, pb + i * sb, c.n, 0.0f, pc + i * sc, c.n);
    }
  });
  // The same library on one thread per call, the rows split between the
  // executor's threads (no library threads left spinning between calls).
  libs.emplace_back("openblas-split", [&] {
    openblas_set_num_threads(1);
    for (std::int64_t i = 0; i < c.batch; ++i)
      backend::parallel_for(c.m, 8, [&](std::int64_t r0, std::int64_t r1) {
        if constexpr (f64)
          cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r1 - r0, c.n, c.k, 1.0,
                      pa + i * sa + r0 * c.k, c.k, pb + i * sb, c.n, 0.0, pc + i * sc + r0 * c.n,
                      c.n);
        else
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r1 - r0, c.n, c.k, 1.0f,
                      pa + i * sa + r0 * c.k, c.k, pb + i * sb, c.n, 0.0f, pc + i * sc + r0 * c.n,
                      c.n);
      });
  });
  if constexpr (!f64)
    libs.emplace_back("onednn-split", [&] {
      for (std::int64_t i = 0; i < c.batch; ++i)
        backend::parallel_for(c.m, 8, [&](std::int64_t r0, std::int64_t r1) {
          omp_set_num_threads(1);
          dnnl_sgemm('N', 'N', r1 - r0, c.n, c.k, 1.0f, pa + i * sa + r0 * c.k, c.k, pb + i * sb,
                     c.n, 0.0f, pc + i * sc + r0 * c.n, c.n);
          omp_set_num_threads(backend::num_threads());
        });
    });
  if constexpr (!f64)
    libs.emplace_back("onednn", [&] {
      for (std::int64_t i = 0; i < c.batch; ++i)
        dnnl_sgemm('N', 'N', c.m, c.n, c.k, 1.0f, pa + i * sa, c.k, pb + i * sb, c.n, 0.0f,
                   pc + i * sc, c.n);
    });
  if (BliGemm gemm = f64 ? blis.dgemm : blis.sgemm)
    libs.emplace_back("blis", [&, gemm] {
      const T one = 1, zero = 0;
      for (std::int64_t i = 0; i < c.batch; ++i)
        gemm(/*BLIS_NO_TRANSPOSE*/ 0, 0, c.m, c.n, c.k, &one, pa + i * sa, c.k, 1, pb + i * sb, c.n,
             1, &zero, pc + i * sc, c.n, 1);
    });
  libs.emplace_back("eqsat", [&] {
    openblas_set_num_threads(1);  // as the executor leaves it
    program.run(inputs);
  });
  libs.emplace_back("eqsat-weights", [&] {
    openblas_set_num_threads(1);
    weights.run(weights_inputs);
  });

  std::vector<double> best(libs.size(), INFINITY);
  for (auto& [name, f] : libs)  // warm-up (the others': before their block)
    if (!own_threads.count(name)) f();
  const double flops = 2.0 * c.batch * c.m * c.n * c.k;
  const int inner = std::max<int>(1, static_cast<int>(2e7 / flops));
  const auto time = [&](std::size_t l) {
    best[l] = std::min(best[l], seconds_of([&] {
                                  for (int i = 0; i < inner; ++i) libs[l].second();
                                }) / inner);
  };
  for (int r = 0; r < reps; ++r)
    for (std::size_t l = 0; l < libs.size(); ++l)
      if (!own_threads.count(libs[l].first)) time(l);
  for (std::size_t l = 0; l < libs.size(); ++l)
    if (own_threads.count(libs[l].first)) {
      libs[l].second();
      for (int r = 0; r < reps; ++r) time(l);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  std::string line =
      fmt::format("{:<12} {:>4}x{:>4}x{:>4}x{:>4} {}", c.label, c.batch, c.m, c.k, c.n, dt);
  for (std::size_t l = 0; l < libs.size(); ++l) {
    const double gf = flops / best[l] / 1e9;
    line += fmt::format("  {} {:6.1f} ({:3.0f}%)", libs[l].first, gf,
                        100 * gf * 1e9 / (f64 ? peak / 2 : peak));
  }
  std::cout << line << "\n" << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  double flops_per_cycle = 32;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--flops-per-cycle") == 0) flops_per_cycle = std::atof(argv[i + 1]);
  }
  setenv("EQSAT_NUM_THREADS", std::to_string(threads).c_str(), 1);
  openblas_set_num_threads(threads);
  Blis blis(threads);
  const double measured = peak_f32(threads);
  const double nominal = threads * flops_per_cycle * cpuinfo_hz();
  const double peak = std::max(measured, nominal);
  std::cout << fmt::format(
      "peak, {} threads: nominal {:.1f} GFLOP/s f32 ({} flops a cycle at {:.0f} MHz), measured "
      "{:.1f} ({} FMA in registers); percentages of {:.1f} f32, {:.1f} f64\n",
      threads, nominal / 1e9, flops_per_cycle, cpuinfo_hz() / 1e6, measured / 1e9,
      has_avx512() ? "AVX-512" : "AVX2", peak / 1e9, peak / 2e9);
  if (!blis.sgemm) std::cout << "BLIS: libblis.so.4 not installed, not measured\n";
  const Case cases[] = {
      {"small", 1, 32, 32, 32},         {"small", 1, 64, 64, 64},
      {"square", 1, 256, 256, 256},     {"square", 1, 512, 512, 512},
      {"square", 1, 1024, 1024, 1024},  {"mlp", 1, 256, 512, 512},
      {"tall-skinny", 1, 4096, 64, 64}, {"tall-skinny", 1, 3200, 64, 512},
      {"lstm-step", 1, 16, 128, 512},   {"batched", 8, 128, 64, 128},
      {"batched", 8, 128, 128, 64},     {"batched", 64, 32, 32, 32},
  };
  for (const Case& c : cases) run_case<float>(c, reps, peak, blis);
  for (const Case& c : cases) run_case<double>(c, reps, peak, blis);
}
