// exp of 8 doubles with AVX-512, of 4 with AVX2 (vector_math_own.hpp).
// With n the integer nearest x * 16/ln2, x = n ln2/16 + r and
// |r| <= ln2/32, so exp(x) = 2^(n >> 4) * 2^((n & 15)/16) * exp(r): the
// power of two is added to the exponent bits, 2^(j/16) is a table of 16
// (hi and lo parts; AVX-512 holds it in four registers and picks by one
// permute each, AVX2 gathers), and exp(r) - 1 is a polynomial. The
// constants come from backend/vector_math_constants.py.
//
// Error: r is off by about 2^-53 |r| (ln2/16's second part), the
// polynomial's truncation is below 2^-59, hi + lo is within 2^-106 of
// 2^(j/16), and hi p + lo rounds far below the result's last place: with
// the final rounding's half ulp, bench_vector_math_ulps measures at most
// 0.56 ulp on normal results (backend/README.md).
#include "vector_math_own.hpp"

#ifdef EQSAT_VMATH_SLEEF

namespace eqsat::backend::vmath {

namespace {

// 2^(j/16), j = 0..15: the nearest double, and the double nearest the rest.
alignas(64) constexpr double kPowHi[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
alignas(64) constexpr double kPowLo[16] = {0x0.0p+0,
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

// Inside [-708, 708] exp(x) and every step's scale are normal doubles.
constexpr double kLimit = 708.0;
// Above 708 up to past the overflow threshold (709.7827), and below -708
// down to past the underflow to 0 (-745.1332), the scale is applied in two
// steps (exp_lanes<1>, exp_lanes<-64>).
constexpr double kHigh = 709.8;
constexpr double kLow = -746.0;
constexpr double kSixteenOverLn2 = 0x1.71547652b82fep+4;
constexpr double kLn2Over16Hi = 0x1.62e42fefa39efp-5;
constexpr double kLn2Over16Lo = 0x1.abc9e3b39803fp-60;
// 1.5 * 2^52: z = x * 16/ln2 + kShift holds n in its low mantissa bits.
constexpr double kShift = 0x1.8p52;
// 1/k! for k = 3..7, Taylor's coefficients of exp(r) - 1 past r + r^2/2.
constexpr double kTaylor[5] = {0x1.5555555555555p-3, 0x1.5555555555555p-5, 0x1.1111111111111p-7,
                               0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13};

}  // namespace

namespace avx512 {

namespace {

// exp of 8 lanes, 2^(n >> 4) applied as 2^((n >> 4) - kRescale) on the
// exponent bits, then a product by 2^kRescale: kRescale = 0 for
// |x| <= 708; 1 for x in (708, 709.8], where 2^(n >> 4) may be 2^1024 (the
// product rounds to the largest double or overflows to inf, as it should);
// -64 for x in [-746, -708), where the product rounds once to a subnormal
// result or 0. Other lanes get garbage.
template <int kRescale>
EQSAT_TARGET_avx512 __m512d exp_lanes(__m512d x) {
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
  const __m512d base = _mm512_add_pd(hi, _mm512_fmadd_pd(hi, p, lo));
  // (n >> 4) - kRescale into the exponent field: kShift's bits are 0 below
  // bit 51, so (bits >> 4) << 52 is (n >> 4) << 52 modulo 2^64.
  __m512i k = _mm512_srli_epi64(bits, 4);
  if constexpr (kRescale != 0) k = _mm512_sub_epi64(k, _mm512_set1_epi64(kRescale));
  const __m512i scale = _mm512_slli_epi64(k, 52);
  const __m512d out = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(base), scale));
  if constexpr (kRescale == 0)
    return out;
  else
    return _mm512_mul_pd(out, _mm512_set1_pd(kRescale > 0 ? 0x1p1 : 0x1p-64));
}

// The lanes of `out` not in `in`: exp in two steps near overflow and
// underflow, SLEEF's outside [-746, 709.8] (exp(x) is 0 or inf there) or
// for NaN. Out of line: the common loop then keeps its registers.
EQSAT_TARGET_avx512 __attribute__((noinline)) __m512d exp_outside(__m512d x, __m512d out,
                                                                  __mmask8 in) {
  const __mmask8 high = _mm512_cmp_pd_mask(x, _mm512_set1_pd(kLimit), _CMP_GT_OQ) &
                        _mm512_cmp_pd_mask(x, _mm512_set1_pd(kHigh), _CMP_LE_OQ);
  const __mmask8 low = _mm512_cmp_pd_mask(x, _mm512_set1_pd(-kLimit), _CMP_LT_OQ) &
                       _mm512_cmp_pd_mask(x, _mm512_set1_pd(kLow), _CMP_GE_OQ);
  out = _mm512_mask_blend_pd(in, Sleef_expd8_u10avx512f(x), out);
  if (high) out = _mm512_mask_mov_pd(out, high, exp_lanes<1>(x));
  if (low) out = _mm512_mask_mov_pd(out, low, exp_lanes<-64>(x));
  return out;
}

// exp of 8 lanes. A lane's result never depends on the other lanes.
EQSAT_TARGET_avx512 __m512d exp_vector(__m512d x) {
  const __mmask8 in = _mm512_cmp_pd_mask(_mm512_abs_pd(x), _mm512_set1_pd(kLimit), _CMP_LE_OQ);
  const __m512d out = exp_lanes<0>(x);
  return in == 0xFF ? out : exp_outside(x, out, in);
}

}  // namespace

void exp(const double* x, double* y, std::int64_t n) {
  apply<exp_vector>(x, y, n);
}

}  // namespace avx512

namespace avx2 {

namespace {

// exp of 4 lanes as avx512's exp_lanes<kRescale>, the table read by two
// gathers.
template <int kRescale>
EQSAT_TARGET_avx2 __m256d exp_lanes(__m256d x) {
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
  const __m256d base = _mm256_add_pd(hi, _mm256_fmadd_pd(hi, p, lo));
  __m256i k = _mm256_srli_epi64(bits, 4);
  if constexpr (kRescale != 0) k = _mm256_sub_epi64(k, _mm256_set1_epi64x(kRescale));
  const __m256i scale = _mm256_slli_epi64(k, 52);
  const __m256d out = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(base), scale));
  if constexpr (kRescale == 0)
    return out;
  else
    return _mm256_mul_pd(out, _mm256_set1_pd(kRescale > 0 ? 0x1p1 : 0x1p-64));
}

// As avx512's exp_outside, the masks vectors.
EQSAT_TARGET_avx2 __attribute__((noinline)) __m256d exp_outside(__m256d x, __m256d out,
                                                                __m256d in) {
  const __m256d high = _mm256_and_pd(_mm256_cmp_pd(x, _mm256_set1_pd(kLimit), _CMP_GT_OQ),
                                     _mm256_cmp_pd(x, _mm256_set1_pd(kHigh), _CMP_LE_OQ));
  const __m256d low = _mm256_and_pd(_mm256_cmp_pd(x, _mm256_set1_pd(-kLimit), _CMP_LT_OQ),
                                    _mm256_cmp_pd(x, _mm256_set1_pd(kLow), _CMP_GE_OQ));
  out = _mm256_blendv_pd(Sleef_expd4_u10avx2(x), out, in);
  if (_mm256_movemask_pd(high)) out = _mm256_blendv_pd(out, exp_lanes<1>(x), high);
  if (_mm256_movemask_pd(low)) out = _mm256_blendv_pd(out, exp_lanes<-64>(x), low);
  return out;
}

// exp of 4 lanes. A lane's result never depends on the other lanes.
EQSAT_TARGET_avx2 __m256d exp_vector(__m256d x) {
  const __m256d abs = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d in = _mm256_cmp_pd(abs, _mm256_set1_pd(kLimit), _CMP_LE_OQ);
  const __m256d out = exp_lanes<0>(x);
  return _mm256_movemask_pd(in) == 0xF ? out : exp_outside(x, out, in);
}

}  // namespace

void exp(const double* x, double* y, std::int64_t n) {
  apply<exp_vector>(x, y, n);
}

}  // namespace avx2

}  // namespace eqsat::backend::vmath

#endif
