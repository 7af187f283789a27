#include "vector_tanh.hpp"

#include "vector_apply.hpp"
#include "vector_exp_lanes.hpp"
#include "vector_level.hpp"

#ifdef __x86_64__
#include <immintrin.h>
#endif

namespace eqsat::backend::vmath {

#ifdef __x86_64__
namespace {

// tanh(|x|) = (1 - e) / (1 + e) with e = exp(-2|x|), in double for eight
// floats widened exactly, e from our own exp's lanes (vector_exp_lanes.hpp,
// within 0.56 ulp). Its relative error grows by at most 2^11 in 1 - e for
// |x| >= 2^-12, so the double quotient is within 2^-40 of tanh, and
// rounding it to float gives at most 0.5 ulp + 2^-16 ulp. Below 2^-12,
// tanh(x) is x within a third of an ulp; |x| is clamped at 9.5, where tanh
// already rounds to 1; NaN passes through. The quotient is 1 - e times a
// reciprocal of 1 + e from rcp14, one Newton step and a residual
// correction (vdivpd would cost more than the rest).
EQSAT_TARGET_avx512 __m512d tanh_of_widened(__m512d x) {
  const __m512d sign = _mm512_set1_pd(-0.0);
  const __m512d magnitude = _mm512_andnot_pd(sign, x);
  const __m512d a = _mm512_min_pd(magnitude, _mm512_set1_pd(9.5));
  const __m512d y = _mm512_mul_pd(a, _mm512_set1_pd(-2.0));
  const __m512d e = avx512::exp_lanes<0>(y);  // y in [-19, 0]: inside its range
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d num = _mm512_sub_pd(one, e), den = _mm512_add_pd(one, e);
  __m512d inv = _mm512_rcp14_pd(den);
  inv = _mm512_fmadd_pd(inv, _mm512_fnmadd_pd(den, inv, one), inv);
  const __m512d q0 = _mm512_mul_pd(num, inv);
  const __m512d t = _mm512_fmadd_pd(_mm512_fnmadd_pd(den, q0, num), inv, q0);
  const __m512d signed_t = _mm512_or_pd(t, _mm512_and_pd(sign, x));
  // Small |x| and NaN (the comparison is false for NaN): x itself.
  const __mmask8 keep = _mm512_cmp_pd_mask(magnitude, _mm512_set1_pd(0x1p-12), _CMP_NGE_UQ);
  return _mm512_mask_blend_pd(keep, signed_t, x);
}

EQSAT_TARGET_avx512 __m512 tanh16(__m512 x) {
  const __m256 low = _mm512_cvtpd_ps(tanh_of_widened(_mm512_cvtps_pd(_mm512_castps512_ps256(x))));
  const __m256 high =
      _mm512_cvtpd_ps(tanh_of_widened(_mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1))));
  return _mm512_insertf32x8(_mm512_castps256_ps512(low), high, 1);
}

}  // namespace

EQSAT_TARGET_avx512 void tanh_f32_avx512(const float* x, float* y, std::int64_t n) {
  avx512::apply<tanh16>(x, y, n);
}

#endif

}  // namespace eqsat::backend::vmath
