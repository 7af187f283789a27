// How the executable's own OpenBLAS starts: its thread count and the
// kernels it runs. A constructor of priority 101 runs before OpenBLAS's
// own start-up (the default priority), which reads both from the
// environment.
#include "blas_start.hpp"

#ifdef EQSAT_HAVE_OPENBLAS
#include <cblas.h>
#include <dlfcn.h>
#endif

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

namespace eqsat::backend {

// Chosen by features, not left to OpenBLAS: it chooses by CPU model
// number, and a model newer than its table runs its generic SSE3 kernels
// ("Prescott"): Debian 12's 0.3.21 does so on a 5th-generation Xeon (model
// 207), where the f64 MLP ran 3x slower than with the AVX-512 kernels
// (bench/README.md, "Speed round 20"). AVX-512 (F, VL, BW, DQ, with the OS
// saving their registers) takes the Skylake-X kernels, AVX2 with FMA the
// Haswell ones (Zen's on AMD: the same kernels with AMD's cache sizes).
const char* blas_core() {
  __builtin_cpu_init();  // runs before libgcc's own constructor sets the flags
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return __builtin_cpu_is("amd") ? "Zen" : "Haswell";
  return nullptr;
}

std::string generic_blas_warning(std::string_view kernels, const char* cpu_core) {
  std::string lower(kernels);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (!cpu_core || lower != "prescott") return {};
  return fmt::format(
      "OpenBLAS runs its generic kernels ({}) on this CPU, a model newer than it knows: "
      "matrix products run several times slower than they can. Set OPENBLAS_CORETYPE={} "
      "before the process starts to use the CPU's vector units.",
      kernels, cpu_core);
}

#ifdef EQSAT_HAVE_OPENBLAS

// Only the executable's own copy (EQSAT_STATIC_SOLVERS) runs
// single-threaded under the executor's pool: a shared OpenBLAS (the Python
// module's) is also NumPy's, whose products its thread count would slow,
// and oneDNN's OpenMP setting would reach the caller's own OpenMP code.
// There large products run on OpenBLAS's own threads, one after another,
// and small ones on Eigen (dot.cpp).
// _dl_find_object looks the two addresses up in the loader's sorted table
// of objects; dladdr scanned the program's exported symbols (2,300) at
// every start.
bool detail::own_blas() {
  static const bool own = [] {
    dl_find_object lib{}, self{};
    if (_dl_find_object(reinterpret_cast<void*>(&cblas_dgemm), &lib) != 0 ||
        _dl_find_object(reinterpret_cast<void*>(&detail::own_blas), &self) != 0)
      return false;
    return lib.dlfo_link_map == self.dlfo_link_map;
  }();
  return own;
}

std::string blas_kernels() {
  return openblas_get_corename();
}

namespace {

// The executable's copy starts without threads (else it starts one per
// core, whose spinning between calls was a third of a small `eqsat
// optimize`'s CPU time, though the optimizer never multiplies) and with
// blas_core()'s kernels, unless the user set OPENBLAS_CORETYPE.
__attribute__((constructor(101))) void start_own_blas() {
  if (!detail::own_blas()) return;
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  if (const char* core = blas_core()) setenv("OPENBLAS_CORETYPE", core, 0);
}

}  // namespace

#else

bool detail::own_blas() {
  return false;
}
std::string blas_kernels() {
  return {};
}

#endif

}  // namespace eqsat::backend
