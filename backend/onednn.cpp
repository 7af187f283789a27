#include "onednn.hpp"

#ifdef EQSAT_HAVE_DNNL
#include <dlfcn.h>
#include <dnnl.h>
#endif

namespace eqsat::backend::detail {

#ifdef EQSAT_HAVE_DNNL
namespace {

// The library's two entry points, or null when it cannot be loaded.
struct OneDnn {
  decltype(&dnnl_sgemm) sgemm = nullptr;
  void (*omp_set_num_threads)(int) = nullptr;  // its OpenMP runtime's (libgomp)

  OneDnn() {
    void* lib = dlopen(EQSAT_DNNL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    sgemm = reinterpret_cast<decltype(sgemm)>(dlsym(lib, "dnnl_sgemm"));
    omp_set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "omp_set_num_threads"));
    if (!sgemm || !omp_set_num_threads) sgemm = nullptr;
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
  // thread alone (the setting is per calling thread).
  thread_local const bool one_thread = (lib.omp_set_num_threads(1), true);
  (void)one_thread;
  return lib.sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc) ==
         dnnl_success;
#else
  (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
  return false;
#endif
}

}  // namespace eqsat::backend::detail
