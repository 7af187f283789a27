// The lanes of exp for AVX-512 (8 doubles) and AVX2 (4): the kernel of
// our own f64 exp (vector_exp.cpp, which handles the arguments outside its
// range), of the f64 tanh (vector_tanh_f64.cpp keeps exp as two parts) and
// of the f32 sigmoid's subnormal results (vector_sigmoid.cpp, in double),
// which need no more than its range. See vector_exp.cpp for the method and its
// error; the constants come from backend/vector_math_constants.py.
#pragma once

#ifdef __x86_64__

#include "vector_level.hpp"

#include <immintrin.h>

#include <cstdint>

namespace eqsat::backend::vmath {

namespace exp_table {

// 2^(j/16), j = 0..15: the nearest double, and the double nearest the rest.
alignas(64) inline constexpr double kPowHi[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
alignas(64) inline constexpr double kPowLo[16] = {0x0.0p+0,
                                                  0x1.8a62e4adc610bp-54,
                                                  -0x1.19041b9d78a76p-55,
                                                  0x1.9b07eb6c70573p-54,
                                                  0x1.6f46ad23182e4p-55,
                                                  0x1.ada0911f09ebcp-55,
                                                  0x1.d4397afec42e2p-56,
                                                  0x1.6324c054647adp-54,
                                                  -0x1.bdd3413b26456p-54,
                                                  -0x1.41577ee04992fp-55,
                                                  0x1.6e9f156864b27p-54,
                                                  0x1.c7c46b071f2bep-56,
                                                  0x1.7a1cd345dcc81p-54,
                                                  0x1.11065895048ddp-55,
                                                  0x1.2ed02d75b3707p-55,
                                                  -0x1.e9c23179c2893p-54};

inline constexpr double kSixteenOverLn2 = 0x1.71547652b82fep+4;
inline constexpr double kLn2Over16Hi = 0x1.62e42fefa39efp-5;
inline constexpr double kLn2Over16Lo = 0x1.abc9e3b39803fp-60;
// 1.5 * 2^52: z = x * 16/ln2 + kShift holds n in its low mantissa bits.
inline constexpr double kShift = 0x1.8p52;
// 1/k! for k = 3..7, Taylor's coefficients of exp(r) - 1 past r + r^2/2.
inline constexpr double kTaylor[5] = {0x1.5555555555555p-3, 0x1.5555555555555p-5,
                                      0x1.1111111111111p-7, 0x1.6c16c16c16c17p-10,
                                      0x1.a01a01a01a01ap-13};

}  // namespace exp_table

namespace avx512 {

// exp(x) before its power of two: exp(x) = 2^(n >> 4) (hi + tail) within
// 2^-58 of hi, for |x| <= 708, with hi the high part of 2^((n & 15)/16)
// and tail = hi p + lo (not added: the f64 tanh keeps the sum unevaluated);
// `bits` holds n in its low bits.
struct ExpParts {
  __m512d hi, tail;
  __m512i bits;
};

EQSAT_TARGET_avx512 inline ExpParts exp_parts(__m512d x) {
  using namespace exp_table;
  const __m512d shift = _mm512_set1_pd(kShift);
  const __m512d z = _mm512_fmadd_pd(x, _mm512_set1_pd(kSixteenOverLn2), shift);
  const __m512d n = _mm512_sub_pd(z, shift);
  // x - n hi is exact: both are multiples of 2^-58 and the difference is
  // below 2^-5 (53 bits at most).
  __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(kLn2Over16Hi), x);
  r = _mm512_fnmadd_pd(n, _mm512_set1_pd(kLn2Over16Lo), r);
  // exp(r) - 1 = r + r^2 (1/2 + r/6 + ... + r^5/7!), Taylor's coefficients.
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d c23 = _mm512_fmadd_pd(r, _mm512_set1_pd(kTaylor[0]), _mm512_set1_pd(0.5));
  const __m512d c45 = _mm512_fmadd_pd(r, _mm512_set1_pd(kTaylor[2]), _mm512_set1_pd(kTaylor[1]));
  const __m512d c67 = _mm512_fmadd_pd(r, _mm512_set1_pd(kTaylor[4]), _mm512_set1_pd(kTaylor[3]));
  const __m512d q = _mm512_fmadd_pd(r2, _mm512_fmadd_pd(r2, c67, c45), c23);
  const __m512d p = _mm512_fmadd_pd(r2, q, r);
  // The permutes read the low 4 bits of z's lanes: j = n & 15.
  const __m512i bits = _mm512_castpd_si512(z);
  const __m512d hi =
      _mm512_permutex2var_pd(_mm512_load_pd(kPowHi), bits, _mm512_load_pd(kPowHi + 8));
  const __m512d lo =
      _mm512_permutex2var_pd(_mm512_load_pd(kPowLo), bits, _mm512_load_pd(kPowLo + 8));
  return {hi, _mm512_fmadd_pd(hi, p, lo), bits};
}

// exp of 8 lanes, 2^(n >> 4) applied as 2^((n >> 4) - kRescale) on the
// exponent bits, then a product by 2^kRescale: kRescale = 0 for
// |x| <= 708; 1 for x in (708, 709.8], where 2^(n >> 4) may be 2^1024 (the
// product rounds to the largest double or overflows to inf, as it should);
// -64 for x in [-746, -708), where the product rounds once to a subnormal
// result or 0. Other lanes get garbage.
template <int kRescale>
EQSAT_TARGET_avx512 inline __m512d exp_lanes(__m512d x) {
  const ExpParts e = exp_parts(x);
  const __m512d base = _mm512_add_pd(e.hi, e.tail);
  // (n >> 4) - kRescale into the exponent field: kShift's bits are 0 below
  // bit 51, so (bits >> 4) << 52 is (n >> 4) << 52 modulo 2^64.
  __m512i k = _mm512_srli_epi64(e.bits, 4);
  if constexpr (kRescale != 0) k = _mm512_sub_epi64(k, _mm512_set1_epi64(kRescale));
  const __m512i scale = _mm512_slli_epi64(k, 52);
  const __m512d out = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(base), scale));
  if constexpr (kRescale == 0)
    return out;
  else
    return _mm512_mul_pd(out, _mm512_set1_pd(kRescale > 0 ? 0x1p1 : 0x1p-64));
}

// 2^(n >> 4) as a double, for exp_parts' `bits` with n >> 4 in [-1022, 1023].
EQSAT_TARGET_avx512 inline __m512d exp_scale(__m512i bits) {
  const __m512i k = _mm512_slli_epi64(_mm512_srli_epi64(bits, 4), 52);
  return _mm512_castsi512_pd(_mm512_add_epi64(k, _mm512_set1_epi64(std::int64_t{1023} << 52)));
}

}  // namespace avx512

namespace avx2 {

// As avx512's ExpParts, 4 lanes.
struct ExpParts {
  __m256d hi, tail;
  __m256i bits;
};

// As avx512's exp_parts, the table read by two gathers.
EQSAT_TARGET_avx2 inline ExpParts exp_parts(__m256d x) {
  using namespace exp_table;
  const __m256d shift = _mm256_set1_pd(kShift);
  const __m256d z = _mm256_fmadd_pd(x, _mm256_set1_pd(kSixteenOverLn2), shift);
  const __m256d n = _mm256_sub_pd(z, shift);
  __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(kLn2Over16Hi), x);  // exact
  r = _mm256_fnmadd_pd(n, _mm256_set1_pd(kLn2Over16Lo), r);
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d c23 = _mm256_fmadd_pd(r, _mm256_set1_pd(kTaylor[0]), _mm256_set1_pd(0.5));
  const __m256d c45 = _mm256_fmadd_pd(r, _mm256_set1_pd(kTaylor[2]), _mm256_set1_pd(kTaylor[1]));
  const __m256d c67 = _mm256_fmadd_pd(r, _mm256_set1_pd(kTaylor[4]), _mm256_set1_pd(kTaylor[3]));
  const __m256d q = _mm256_fmadd_pd(r2, _mm256_fmadd_pd(r2, c67, c45), c23);
  const __m256d p = _mm256_fmadd_pd(r2, q, r);
  const __m256i bits = _mm256_castpd_si256(z);
  const __m256i j = _mm256_and_si256(bits, _mm256_set1_epi64x(15));
  const __m256d hi = _mm256_i64gather_pd(kPowHi, j, 8);
  const __m256d lo = _mm256_i64gather_pd(kPowLo, j, 8);
  return {hi, _mm256_fmadd_pd(hi, p, lo), bits};
}

// exp of 4 lanes as avx512's exp_lanes<kRescale>.
template <int kRescale>
EQSAT_TARGET_avx2 inline __m256d exp_lanes(__m256d x) {
  const ExpParts e = exp_parts(x);
  const __m256d base = _mm256_add_pd(e.hi, e.tail);
  __m256i k = _mm256_srli_epi64(e.bits, 4);
  if constexpr (kRescale != 0) k = _mm256_sub_epi64(k, _mm256_set1_epi64x(kRescale));
  const __m256i scale = _mm256_slli_epi64(k, 52);
  const __m256d out = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(base), scale));
  if constexpr (kRescale == 0)
    return out;
  else
    return _mm256_mul_pd(out, _mm256_set1_pd(kRescale > 0 ? 0x1p1 : 0x1p-64));
}

// As avx512's exp_scale.
EQSAT_TARGET_avx2 inline __m256d exp_scale(__m256i bits) {
  const __m256i k = _mm256_slli_epi64(_mm256_srli_epi64(bits, 4), 52);
  return _mm256_castsi256_pd(_mm256_add_epi64(k, _mm256_set1_epi64x(std::int64_t{1023} << 52)));
}

}  // namespace avx2

}  // namespace eqsat::backend::vmath

#endif
