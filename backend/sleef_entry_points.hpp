// SLEEF's u10 entry points for SSE2, AVX2 and AVX-512
// (`Sleef_expd8_u10avx512f` and so on), for the functions of
// vector_math.hpp, as functions of this namespace that call the routine
// of the library opened on first use (sleef_library.hpp). Each is compiled
// for its level (vector_level.hpp): Clang refuses a vector argument passed
// to a function not compiled for it. EQSAT_VMATH_SLEEF is defined where
// SLEEF is found on x86-64.
#pragma once

#include "vector_level.hpp"
#include "vector_math.hpp"

#if defined(EQSAT_HAVE_SLEEF) && defined(__x86_64__)
#define EQSAT_VMATH_SLEEF 1
#include "sleef_library.hpp"

#include <immintrin.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
namespace eqsat::backend {
#define EQSAT_SLEEF_CALL(name, level, V)                                      \
  EQSAT_TARGET_##level inline V name(V x) {                                   \
    return reinterpret_cast<V (*)(V)>(sleef::entry(sleef::Routine::name))(x); \
  }
#define EQSAT_SLEEF_DECLARE(fn) EQSAT_SLEEF_ROUTINES(EQSAT_SLEEF_CALL, fn)
EQSAT_VMATH_FUNCTIONS(EQSAT_SLEEF_DECLARE)
#undef EQSAT_SLEEF_DECLARE
#undef EQSAT_SLEEF_CALL
}  // namespace eqsat::backend
#pragma GCC diagnostic pop
#endif
