// f32 tanh in f32 arithmetic (vector_tanh.hpp). With a = |x|:
//
// - a < 0.55: a + a^3 P(a^2), P of degree 4 minimax for
//   (tanh(a) - a) / a^3 (relative error 2^-24.6), summed by one FMA: a^2 P
//   is below a tenth, so P's error and the roundings of a^3 and P cost
//   about a quarter of an ulp past the last rounding's half; NaN, ±0 and
//   subnormals come out as themselves.
// - a >= 0.55: tanh(a) = 2w - 1 with w = 1 / (1 + e), e = exp(-2a) =
//   2^k (1 + m) (vector_exp_f32_lanes.hpp: 1 + m within 3.5 2^-26 of
//   its target). 1 + e is carried exactly as dh + dl (1 + 2^k by Fast2Sum,
//   2^k m added to the low part by FMA); r0 approximates 1 / (dh + dl)
//   (rcp14 at AVX-512, rcp and a Newton step at AVX2: 2^-14 or better),
//   rho = 1 - r0 (dh + dl) is its residual, and tanh = (2 r0 - 1) +
//   2 r0 rho rounds once: 2 r0 - 1 is exact (r0 is in [0.67, 1]) and rho's
//   own omission, r0 rho^2, is below 2^-28. e's error reaches tanh scaled
//   by 2e / (1 - e^2) <= 0.75 (at a = 0.55). Below 0.55 the quotient
//   would cost more: at a = 0.52, where |r| is largest and the scale
//   0.81, the check of all floats found 0.9965 ulp.
//   a is clamped at 9.1, where tanh already rounds to 1.
//
// All floats measure at most 0.7751 ulp at both levels (the test's hidden
// case: 0.775077 at 0.520119, in the series).
//
// x's sign is then put back (tanh is odd; -0 stays -0).
#include "vector_tanh.hpp"

#include "vector_apply.hpp"
#include "vector_exp_f32_lanes.hpp"
#include "vector_level.hpp"

#ifdef __x86_64__
#include <immintrin.h>
#endif

namespace eqsat::backend::vmath {

#ifdef __x86_64__
namespace {

// Below it, the polynomial; at and above it, the quotient.
constexpr float kSmall = 0.55f;
// tanh(9.1) rounds to 1 (1 - tanh(a) < 2^-25 from a = 9.011 on).
constexpr float kClamp = 9.1f;
// P(z), minimax for (tanh(a) - a) / a^3 with z = a^2 on a <= 0.55
// (backend/vector_math_constants.py).
constexpr float kP[5] = {-0x1.555554p-2f, 0x1.110feap-3f, -0x1.b9a04ep-5f, 0x1.5d2270p-6f,
                         -0x1.b137c2p-8f};

// tanh(a) for 0 <= a, a < kSmall; NaN for NaN.
EQSAT_TARGET_avx512 __m512 tanh_series(__m512 a) {
  const __m512 z = _mm512_mul_ps(a, a);
  __m512 p = _mm512_set1_ps(kP[4]);
  for (int i = 3; i >= 0; --i) p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(kP[i]));
  return _mm512_fmadd_ps(_mm512_mul_ps(a, z), p, a);
}

// tanh(a) for a >= kSmall (clamped at kClamp); garbage below.
EQSAT_TARGET_avx512 __m512 tanh_quotient(__m512 a) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 y = _mm512_mul_ps(_mm512_min_ps(a, _mm512_set1_ps(kClamp)), _mm512_set1_ps(-2.0f));
  const avx512::ExpF32 e = avx512::exp_f32_parts(y);  // k in [-27, -1]
  const __m512 scale = avx512::exp_f32_scale(e.kbits);
  const __m512 dh = _mm512_add_ps(one, scale);
  const __m512 dl = _mm512_fmadd_ps(e.m, scale, _mm512_add_ps(_mm512_sub_ps(one, dh), scale));
  const __m512 r0 = _mm512_rcp14_ps(_mm512_add_ps(dh, dl));
  const __m512 rho = _mm512_fnmadd_ps(r0, dl, _mm512_fnmadd_ps(r0, dh, one));
  const __m512 base = _mm512_fmsub_ps(r0, _mm512_set1_ps(2.0f), one);
  return _mm512_fmadd_ps(rho, _mm512_add_ps(r0, r0), base);
}

// tanh of 16 lanes: both paths, then a blend (a lane's result never
// depends on the other lanes).
EQSAT_TARGET_avx512 __attribute__((always_inline)) inline __m512 tanh16(__m512 x) {
  const __m512 sign = _mm512_set1_ps(-0.0f);
  const __m512 a = _mm512_andnot_ps(sign, x);
  // Small or NaN (the comparison is false for NaN).
  const __mmask16 small = _mm512_cmp_ps_mask(a, _mm512_set1_ps(kSmall), _CMP_NGE_UQ);
  const __m512 t = _mm512_mask_mov_ps(tanh_quotient(a), small, tanh_series(a));
  // t | (x & sign).
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
      _mm512_castps_si512(t), _mm512_castps_si512(x), _mm512_castps_si512(sign), 0xF8));
}

// As tanh_series, 8 lanes.
EQSAT_TARGET_avx2 __m256 tanh_series(__m256 a) {
  const __m256 z = _mm256_mul_ps(a, a);
  __m256 p = _mm256_set1_ps(kP[4]);
  for (int i = 3; i >= 0; --i) p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(kP[i]));
  return _mm256_fmadd_ps(_mm256_mul_ps(a, z), p, a);
}

// As tanh_quotient, 8 lanes; rcp's 2^-11.4 takes a Newton step to 2^-22
// (rho + rho^2 would leave rho of 2^-12, whose rounding moved results by
// an ulp where tanh rounds to 1 or to 1 - 2^-24 by a hair, at 9.011).
EQSAT_TARGET_avx2 __m256 tanh_quotient(__m256 a) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 y = _mm256_mul_ps(_mm256_min_ps(a, _mm256_set1_ps(kClamp)), _mm256_set1_ps(-2.0f));
  const avx2::ExpF32 e = avx2::exp_f32_parts(y);
  const __m256 scale = avx2::exp_f32_scale(e.kbits);
  const __m256 dh = _mm256_add_ps(one, scale);
  const __m256 dl = _mm256_fmadd_ps(e.m, scale, _mm256_add_ps(_mm256_sub_ps(one, dh), scale));
  const __m256 d = _mm256_add_ps(dh, dl);
  const __m256 r = _mm256_rcp_ps(d);
  const __m256 r0 = _mm256_fmadd_ps(r, _mm256_fnmadd_ps(r, d, one), r);
  const __m256 rho = _mm256_fnmadd_ps(r0, dl, _mm256_fnmadd_ps(r0, dh, one));
  const __m256 base = _mm256_fmsub_ps(r0, _mm256_set1_ps(2.0f), one);
  return _mm256_fmadd_ps(rho, _mm256_add_ps(r0, r0), base);
}

// As tanh16, 8 lanes.
EQSAT_TARGET_avx2 __attribute__((always_inline)) inline __m256 tanh8(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 a = _mm256_andnot_ps(sign, x);
  const __m256 small = _mm256_cmp_ps(a, _mm256_set1_ps(kSmall), _CMP_NGE_UQ);
  const __m256 t = _mm256_blendv_ps(tanh_quotient(a), tanh_series(a), small);
  return _mm256_or_ps(t, _mm256_and_ps(sign, x));
}

}  // namespace

EQSAT_TARGET_avx512 void tanh_f32_avx512(const float* x, float* y, std::int64_t n) {
  avx512::apply<tanh16>(x, y, n);
}

EQSAT_TARGET_avx2 void tanh_f32_avx2(const float* x, float* y, std::int64_t n) {
  avx2::apply<tanh8>(x, y, n);
}

#endif

}  // namespace eqsat::backend::vmath
