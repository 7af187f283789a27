#include "onednn.hpp"

#ifdef EQSAT_HAVE_DNNL
#include <dlfcn.h>
#include <dnnl.h>
#endif

namespace eqsat::backend::detail {

#ifdef EQSAT_HAVE_DNNL
namespace {

// The library's entry points, or null when it cannot be loaded.
struct OneDnn {
  decltype(&dnnl_sgemm) sgemm = nullptr;
  // Its OpenMP runtime's (libgomp) thread count for the calling thread.
  int (*omp_get_max_threads)() = nullptr;
  void (*omp_set_num_threads)(int) = nullptr;

  OneDnn() {
    void* lib = dlopen(EQSAT_DNNL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    sgemm = reinterpret_cast<decltype(sgemm)>(dlsym(lib, "dnnl_sgemm"));
    omp_get_max_threads = reinterpret_cast<int (*)()>(dlsym(lib, "omp_get_max_threads"));
    omp_set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "omp_set_num_threads"));
    if (!sgemm || !omp_get_max_threads || !omp_set_num_threads) sgemm = nullptr;
  }
};

const OneDnn& onednn() {
  static const OneDnn lib;
  return lib;
}

}  // namespace
#endif

bool onednn_sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                  std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                  std::int64_t ldc) {
#ifdef EQSAT_HAVE_DNNL
  const OneDnn& lib = onednn();
  if (!lib.sgemm) return false;
  // The executor's pool splits the work: oneDNN's OpenMP team is this
  // thread alone, for this call only. The setting is per calling thread and
  // is other code's too (an application embedding eqsat, bench_gemm's
  // oneDNN columns): set once and left, it was raised again between calls,
  // and each of the pool's threads ran a team of its own, more threads than
  // cores (bench_gemm's 16 x 128 x 512 f32 product at 84 GFLOP/s, 293
  // through `eqsat profile`); and the caller's own OpenMP code lost its team.
  const int callers = lib.omp_get_max_threads();
  lib.omp_set_num_threads(1);
  const bool done = lib.sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta,
                              c, ldc) == dnnl_success;
  lib.omp_set_num_threads(callers);
  return done;
#else
  (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
  return false;
#endif
}

}  // namespace eqsat::backend::detail
