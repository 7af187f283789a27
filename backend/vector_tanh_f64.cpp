// tanh of 8 doubles with AVX-512, of 4 with AVX2 (vector_math_own.hpp).
// With a = |x|:
//
// - a >= 1/8: tanh(a) = (1 - e) / (1 + e) with e = exp(-2a) from exp's
//   lanes kept as two parts (vector_exp_lanes.hpp: within 2^-58 of e).
//   1 - e and 1 + e are carried exactly as double pairs (Fast2Sum: 1 is
//   the larger term), and the quotient of the pairs is the correctly
//   rounded 1 / (1 + e) times 1 - e, plus its residual times that
//   reciprocal. e's error grows by e / (1 - e) <= 3.6 in 1 - e, so the
//   result is within 0.5 ulp + 2^-56 of tanh. a is clamped at 20, where
//   tanh rounds to 1.
// - a < 1/8: a + a^3 P(a^2), P the Taylor polynomial of degree 6 of
//   (tanh(a) - a) / a^3 (the first term left out, 6404582/10854718875
//   a^17, is below 2^-58 a here), its rounding a hundredth of an ulp of a;
//   NaN and subnormals come out as themselves.
//
// x's sign is then put back (tanh is odd; -0 stays -0).
//
// bench_vector_math_ulps measures the worst case (backend/README.md). The
// reciprocal is a division at both levels, so both give the same bits. The
// constants come from backend/vector_math_constants.py.
#include "vector_exp_lanes.hpp"
#include "vector_math_own.hpp"

#ifdef EQSAT_VMATH_SLEEF

namespace eqsat::backend::vmath {

namespace {

// Below it, the polynomial; at and above it, the quotient.
constexpr double kSmall = 0.125;
// tanh(20) rounds to 1, and exp(-40) is a normal double.
constexpr double kClamp = 20.0;
// Taylor's coefficients of tanh(x) for x^3, x^5, ..., x^15.
constexpr double kTanhTaylor[7] = {
    -0x1.5555555555555p-2, 0x1.1111111111111p-3, -0x1.ba1ba1ba1ba1cp-5, 0x1.664f4882c10fap-6,
    -0x1.226e355e6c23dp-7, 0x1.d6d3d0e157de0p-9, -0x1.7da36452b75e3p-10};

}  // namespace

namespace avx512 {

namespace {

// tanh(a) for a >= kSmall (clamped at kClamp), positive.
EQSAT_TARGET_avx512 __m512d tanh_quotient(__m512d a) {
  const __m512d y = _mm512_mul_pd(_mm512_min_pd(a, _mm512_set1_pd(kClamp)), _mm512_set1_pd(-2.0));
  const ExpParts parts = exp_parts(y);  // y in [-40, -1/4]: inside exp's range
  const __m512d scale = exp_scale(parts.bits);
  // hi + tail as a normalized pair (Fast2Sum: |tail| < hi), so that the
  // reciprocal of 1 + e's high part serves for the whole.
  const __m512d sum = _mm512_add_pd(parts.hi, parts.tail);
  const __m512d rest = _mm512_add_pd(_mm512_sub_pd(parts.hi, sum), parts.tail);
  const __m512d eh = _mm512_mul_pd(sum, scale), el = _mm512_mul_pd(rest, scale);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d nh = _mm512_sub_pd(one, eh);
  const __m512d nl = _mm512_sub_pd(_mm512_sub_pd(_mm512_sub_pd(one, nh), eh), el);
  const __m512d dh = _mm512_add_pd(one, eh);
  const __m512d dl = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(one, dh), eh), el);
  const __m512d inv = _mm512_div_pd(one, dh);
  const __m512d q0 = _mm512_mul_pd(nh, inv);
  const __m512d rho = _mm512_add_pd(_mm512_fnmadd_pd(q0, dh, nh), _mm512_fnmadd_pd(q0, dl, nl));
  return _mm512_fmadd_pd(rho, inv, q0);
}

// tanh(a) for 0 <= a < kSmall, and NaN for NaN.
EQSAT_TARGET_avx512 __m512d tanh_series(__m512d x) {
  const __m512d z = _mm512_mul_pd(x, x);
  __m512d p = _mm512_set1_pd(kTanhTaylor[6]);
  for (int i = 5; i >= 0; --i) p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(kTanhTaylor[i]));
  return _mm512_fmadd_pd(_mm512_mul_pd(x, z), p, x);
}

// tanh of 8 lanes; each path runs only when some lane needs it.
EQSAT_TARGET_avx512 __m512d tanh_vector(__m512d x) {
  const __m512d sign = _mm512_set1_pd(-0.0);
  const __m512d a = _mm512_andnot_pd(sign, x);
  // Small or NaN (the comparison is false for NaN).
  const __mmask8 small = _mm512_cmp_pd_mask(a, _mm512_set1_pd(kSmall), _CMP_NGE_UQ);
  __m512d out = a;
  if (small != 0xFF) out = tanh_quotient(a);
  if (small) out = _mm512_mask_mov_pd(out, small, tanh_series(a));
  return _mm512_or_pd(out, _mm512_and_pd(sign, x));
}

}  // namespace

void tanh(const double* x, double* y, std::int64_t n) {
  apply<tanh_vector>(x, y, n);
}

}  // namespace avx512

namespace avx2 {

namespace {

// As avx512's tanh_quotient.
EQSAT_TARGET_avx2 __m256d tanh_quotient(__m256d a) {
  const __m256d y = _mm256_mul_pd(_mm256_min_pd(a, _mm256_set1_pd(kClamp)), _mm256_set1_pd(-2.0));
  const ExpParts parts = exp_parts(y);
  const __m256d scale = exp_scale(parts.bits);
  const __m256d sum = _mm256_add_pd(parts.hi, parts.tail);
  const __m256d rest = _mm256_add_pd(_mm256_sub_pd(parts.hi, sum), parts.tail);
  const __m256d eh = _mm256_mul_pd(sum, scale), el = _mm256_mul_pd(rest, scale);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d nh = _mm256_sub_pd(one, eh);
  const __m256d nl = _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(one, nh), eh), el);
  const __m256d dh = _mm256_add_pd(one, eh);
  const __m256d dl = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(one, dh), eh), el);
  const __m256d inv = _mm256_div_pd(one, dh);
  const __m256d q0 = _mm256_mul_pd(nh, inv);
  const __m256d rho = _mm256_add_pd(_mm256_fnmadd_pd(q0, dh, nh), _mm256_fnmadd_pd(q0, dl, nl));
  return _mm256_fmadd_pd(rho, inv, q0);
}

// As avx512's tanh_series.
EQSAT_TARGET_avx2 __m256d tanh_series(__m256d x) {
  const __m256d z = _mm256_mul_pd(x, x);
  __m256d p = _mm256_set1_pd(kTanhTaylor[6]);
  for (int i = 5; i >= 0; --i) p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(kTanhTaylor[i]));
  return _mm256_fmadd_pd(_mm256_mul_pd(x, z), p, x);
}

// As avx512's tanh_vector, the masks vectors.
EQSAT_TARGET_avx2 __m256d tanh_vector(__m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d a = _mm256_andnot_pd(sign, x);
  const __m256d small = _mm256_cmp_pd(a, _mm256_set1_pd(kSmall), _CMP_NGE_UQ);
  const int mask = _mm256_movemask_pd(small);
  __m256d out = a;
  if (mask != 0xF) out = tanh_quotient(a);
  if (mask) out = _mm256_blendv_pd(out, tanh_series(a), small);
  return _mm256_or_pd(out, _mm256_and_pd(sign, x));
}

}  // namespace

void tanh(const double* x, double* y, std::int64_t n) {
  apply<tanh_vector>(x, y, n);
}

}  // namespace avx2

}  // namespace eqsat::backend::vmath

#endif
