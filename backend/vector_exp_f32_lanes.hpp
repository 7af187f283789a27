// exp of f32 lanes before its power of two, for the f32 tanh and sigmoid
// (vector_tanh.cpp, vector_sigmoid.cpp): e^y = 2^k (1 + m) with m a float
// and 2^k applied by the caller, who needs 1 + e^y more than e^y itself.
// AVX-512 (16 lanes) and AVX2 (8), the same steps; the constants come from
// backend/vector_math_constants.py.
#pragma once

#ifdef __x86_64__

#include "vector_level.hpp"

#include <immintrin.h>

namespace eqsat::backend::vmath {

namespace exp_f32 {

// ln2 as a float and the float nearest the rest; 1/ln2.
inline constexpr float kLn2Hi = 0x1.62e430p-1f;
inline constexpr float kLn2Lo = -0x1.05c610p-29f;
inline constexpr float kInvLn2 = 0x1.715476p+0f;
// 1.5 * 2^23: y / ln2 + kShift holds k in its low mantissa bits.
inline constexpr float kShift = 0x1.8p23f;
// Q(r), minimax for (e^r - 1 - r) / r^2 on |r| <= 0.3467 (relative error
// 2^-22.9, so r^2 Q(r) is within 2^-27 of e^r - 1 - r relative to e^r).
inline constexpr float kQ[5] = {0x1.000000p-1f, 0x1.5554dep-3f, 0x1.5555bap-5f, 0x1.120b4ap-7f,
                                0x1.6c6a04p-10f};

}  // namespace exp_f32

namespace avx512 {

// e^y = 2^k (1 + m) for |y| <= 125 ln2 (NaN gives a NaN m): k is y / ln2
// rounded, r = y - k ln2 (|r| <= 0.3467; y - k ln2_hi is exact, the
// rounding of r - k ln2_lo costs at most 2^-26) and m = r + r^2 Q(r),
// rounded once (at most 2^-26, and Q's 2^-26.8): 1 + m >= 0.707 is
// within 3.5 2^-26 of e^(y - k ln2), relative. `kbits` is k << 23, the
// field of a float's exponent.
struct ExpF32 {
  __m512i kbits;
  __m512 m;
};

EQSAT_TARGET_avx512 inline ExpF32 exp_f32_parts(__m512 y) {
  using namespace exp_f32;
  const __m512 shift = _mm512_set1_ps(kShift);
  const __m512 t = _mm512_fmadd_ps(y, _mm512_set1_ps(kInvLn2), shift);
  const __m512 k = _mm512_sub_ps(t, shift);
  const __m512 r =
      _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Lo), _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Hi), y));
  __m512 q = _mm512_set1_ps(kQ[4]);
  for (int i = 3; i >= 0; --i) q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kQ[i]));
  const __m512 m = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r);
  return {_mm512_slli_epi32(_mm512_castps_si512(t), 23), m};
}

// 2^k for ExpF32's kbits, k in [-126, 127].
EQSAT_TARGET_avx512 inline __m512 exp_f32_scale(__m512i kbits) {
  return _mm512_castsi512_ps(_mm512_add_epi32(kbits, _mm512_set1_epi32(127 << 23)));
}

}  // namespace avx512

namespace avx2 {

// As avx512's ExpF32, 8 lanes.
struct ExpF32 {
  __m256i kbits;
  __m256 m;
};

// As avx512's exp_f32_parts.
EQSAT_TARGET_avx2 inline ExpF32 exp_f32_parts(__m256 y) {
  using namespace exp_f32;
  const __m256 shift = _mm256_set1_ps(kShift);
  const __m256 t = _mm256_fmadd_ps(y, _mm256_set1_ps(kInvLn2), shift);
  const __m256 k = _mm256_sub_ps(t, shift);
  const __m256 r =
      _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Lo), _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Hi), y));
  __m256 q = _mm256_set1_ps(kQ[4]);
  for (int i = 3; i >= 0; --i) q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kQ[i]));
  const __m256 m = _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, r);
  return {_mm256_slli_epi32(_mm256_castps_si256(t), 23), m};
}

// As avx512's exp_f32_scale.
EQSAT_TARGET_avx2 inline __m256 exp_f32_scale(__m256i kbits) {
  return _mm256_castsi256_ps(_mm256_add_epi32(kbits, _mm256_set1_epi32(127 << 23)));
}

}  // namespace avx2

}  // namespace eqsat::backend::vmath

#endif
