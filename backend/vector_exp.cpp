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
#include "vector_exp_lanes.hpp"
#include "vector_math_own.hpp"

#ifdef EQSAT_VMATH_SLEEF

namespace eqsat::backend::vmath {

namespace {

// Inside [-708, 708] exp(x) and every step's scale are normal doubles.
constexpr double kLimit = 708.0;
// Above 708 up to past the overflow threshold (709.7827), and below -708
// down to past the underflow to 0 (-745.1332), the scale is applied in two
// steps (exp_lanes<1>, exp_lanes<-64>).
constexpr double kHigh = 709.8;
constexpr double kLow = -746.0;

}  // namespace

namespace avx512 {

namespace {

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
