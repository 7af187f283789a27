// SLEEF's library (libsleef), opened on the first call of one of its
// routines instead of by the dynamic loader at every process start: an
// `eqsat optimize` rarely computes a transcendental, and loading the
// library cost each process about 0.27 ms (bench/README.md, "Start-up round
// 26"). sleef_entry_points.hpp calls the routines through `entry`.
#pragma once

#include "vector_math.hpp"

#include <atomic>
#include <cstddef>

namespace eqsat::backend::sleef {

// X(name, level, vector type) for each routine of function `fn` the backend
// calls: at each level (SSE2, AVX2, AVX-512) and width (f64, f32). The
// routines' table, their names and the calls (sleef_entry_points.hpp) all
// follow from it.
#define EQSAT_SLEEF_ROUTINES(X, fn)                                                         \
  X(Sleef_##fn##d2_u10sse2, sse2, __m128d)                                                  \
  X(Sleef_##fn##f4_u10sse2, sse2, __m128) X(Sleef_##fn##d4_u10avx2, avx2, __m256d)          \
      X(Sleef_##fn##f8_u10avx2, avx2, __m256) X(Sleef_##fn##d8_u10avx512f, avx512, __m512d) \
          X(Sleef_##fn##f16_u10avx512f, avx512, __m512)

#define EQSAT_SLEEF_ENUMERATOR(name, level, V) name,
#define EQSAT_SLEEF_ENUMERATORS(fn) EQSAT_SLEEF_ROUTINES(EQSAT_SLEEF_ENUMERATOR, fn)
enum class Routine : std::size_t { EQSAT_VMATH_FUNCTIONS(EQSAT_SLEEF_ENUMERATORS) kCount };
#undef EQSAT_SLEEF_ENUMERATORS
#undef EQSAT_SLEEF_ENUMERATOR

// The routines' addresses, null until the library is opened.
extern std::atomic<void*> routines[static_cast<std::size_t>(Routine::kCount)];

// Opens the library (once, for every routine) and gives `r`'s address.
// Throws RuntimeError naming the library and the system's reason when it
// cannot be opened or lacks a routine.
void* open_routine(Routine r);

inline void* entry(Routine r) {
  void* f = routines[static_cast<std::size_t>(r)].load(std::memory_order_acquire);
  return f ? f : open_routine(r);
}

}  // namespace eqsat::backend::sleef
