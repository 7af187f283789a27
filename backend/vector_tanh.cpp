#include "vector_tanh.hpp"

#include "vector_level.hpp"

#include <cstring>

#ifdef __x86_64__
#include <immintrin.h>
#endif

namespace eqsat::backend::vmath {

#ifdef __x86_64__
namespace {

// tanh(|x|) = (1 - e) / (1 + e) with e = exp(-2|x|), in double for eight
// floats widened exactly. e comes from e = 2^q · 2^(j/16) · p(r):
// -2|x| = (16q + j) ln2/16 + r, |r| <= ln2/32, p the degree-6 Taylor
// polynomial of exp (remainder below 2^-51 relative), 2^(j/16) from a
// 16-entry table held in two registers. Its relative error (a few 2^-53)
// grows by at most 2^11 in 1 - e for |x| >= 2^-12, so the double quotient
// is within 2^-40 of tanh, and rounding it to float gives at most
// 0.5 ulp + 2^-16 ulp. Below 2^-12, tanh(x) is x within a third of an ulp;
// |x| is clamped at 9.5, where tanh already rounds to 1; NaN passes
// through. The quotient is 1 - e times a reciprocal of 1 + e from rcp14,
// one Newton step and a residual correction (vdivpd would cost more than
// the rest).
EQSAT_TARGET_avx512 __m512d tanh_of_widened(__m512d x) {
  const __m512d sign = _mm512_set1_pd(-0.0);
  const __m512d magnitude = _mm512_andnot_pd(sign, x);
  const __m512d a = _mm512_min_pd(magnitude, _mm512_set1_pd(9.5));
  const __m512d y = _mm512_mul_pd(a, _mm512_set1_pd(-2.0));
  // k = 16q + j nearest y / (ln2/16); ln2/16 in two parts.
  const __m512d k = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(0x1.71547652b82fep+4)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(0x1.62e42fefa39efp-5), y);
  r = _mm512_fnmadd_pd(k, _mm512_set1_pd(0x1.abc9e3b39803fp-60), r);
  const __m512d q = _mm512_roundscale_pd(_mm512_mul_pd(k, _mm512_set1_pd(0.0625)),
                                         _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m512i j = _mm512_cvttpd_epi64(_mm512_fnmadd_pd(q, _mm512_set1_pd(16.0), k));
  // 2^(j/16), j = 0..15, correctly rounded.
  const __m512d low = _mm512_setr_pd(
      0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
      0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0);
  const __m512d high = _mm512_setr_pd(
      0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
      0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0);
  const __m512d table = _mm512_permutex2var_pd(low, j, high);
  __m512d p = _mm512_set1_pd(1.0 / 720);
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 120));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 24));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 6));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.5));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
  p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
  const __m512d e = _mm512_scalef_pd(_mm512_mul_pd(table, p), q);
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

// The tail goes through the same routine via a padded copy, so an
// element's result never depends on its position.
EQSAT_TARGET_avx512 void tanh_f32_avx512(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, tanh16(_mm512_loadu_ps(x + i)));
  if (i < n) {
    alignas(64) float tail[16] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(float));
    _mm512_store_ps(tail, tanh16(_mm512_load_ps(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(float));
  }
}
#endif

}  // namespace eqsat::backend::vmath
