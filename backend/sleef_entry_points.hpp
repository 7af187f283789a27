// SLEEF's u10 entry points for AVX2 and AVX-512 (`Sleef_expd8_u10avx512f`
// and so on), for the functions of vector_math.hpp. sleef.h declares them
// only where the whole file is compiled for those instruction sets; here
// they are called from functions compiled for their level
// (vector_level.hpp), so they are declared for that level too (Clang
// refuses a vector argument passed to a function not compiled for it).
// EQSAT_VMATH_SLEEF is defined where SLEEF is linked on x86-64.
#pragma once

#include "vector_level.hpp"
#include "vector_math.hpp"

#if defined(EQSAT_HAVE_SLEEF) && defined(__x86_64__)
#define EQSAT_VMATH_SLEEF 1
#include <immintrin.h>
#include <sleef.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
extern "C" {
#define EQSAT_SLEEF_DECLARE(fn)                                   \
  EQSAT_TARGET_avx2 __m256d Sleef_##fn##d4_u10avx2(__m256d);      \
  EQSAT_TARGET_avx2 __m256 Sleef_##fn##f8_u10avx2(__m256);        \
  EQSAT_TARGET_avx512 __m512d Sleef_##fn##d8_u10avx512f(__m512d); \
  EQSAT_TARGET_avx512 __m512 Sleef_##fn##f16_u10avx512f(__m512);
EQSAT_VMATH_FUNCTIONS(EQSAT_SLEEF_DECLARE)
#undef EQSAT_SLEEF_DECLARE
}
#pragma GCC diagnostic pop
#endif
