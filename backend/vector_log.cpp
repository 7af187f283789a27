// log and log1p of 8 doubles with AVX-512, of 4 with AVX2 (the same steps, so the
// same bits; vector_math_own.hpp). For a positive normal x, x = 2^k z with
// z in [sqrt(2)/2, sqrt(2)) (k and z from the bits: x's bits less those of
// sqrt(2)/2 give k in their top 12, as in musl's log), f = z - 1 (exact),
// and log(1 + f) = 2 atanh(s) with s = f / (2 + f) is fdlibm's (e_log.c,
// FreeBSD msun): f - (f^2/2 - s (f^2/2 + R)), R a minimax polynomial in s^2
// of degree 7 (its error below 2^-58.45), plus k ln2 in two parts (the
// first has 11 trailing zero bits, so k ln2_hi is exact). No table, so
// nothing to gather. Zero, negative, subnormal and non-finite lanes take
// SLEEF's result (out of line), so those edges are SLEEF's: log(0) = -inf,
// log(-1) = NaN, log of a subnormal finite. log1p is log of u = 1 + x with
// the rounding of u carried in (below).
#include "vector_math_own.hpp"

#ifdef EQSAT_VMATH_SLEEF

#include <cfloat>

namespace eqsat::backend::vmath {

namespace {

// fdlibm's e_log.c, Lg1..Lg7 (bits 0x3FE5555555555593 ...).
constexpr double kLg[7] = {0x1.5555555555593p-1, 0x1.999999997fa04p-2, 0x1.2492494229359p-2,
                           0x1.c71c51d8e78afp-3, 0x1.7466496cb03dep-3, 0x1.39a09d078c69fp-3,
                           0x1.2f112df3e5244p-3};
constexpr double kLn2Hi = 0x1.62e42fee00000p-1;
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
// The bits of sqrt(2)/2: x's bits less these have k in their top 12 bits.
constexpr std::int64_t kSqrtHalfBits = 0x3fe6a09e667f3bcd;
constexpr std::int64_t kExponentMask = static_cast<std::int64_t>(0xfff0000000000000ULL);

}  // namespace

namespace avx512 {

namespace {

// v in every lane.
EQSAT_TARGET_avx512 __m512d set(double v) {
  return _mm512_set1_pd(v);
}

// log(x) + corr for 8 positive normal lanes x and |corr| below half an ulp
// of x / x (others get garbage): corr joins the low part.
EQSAT_TARGET_avx512 __m512d log_in_range(__m512d x, __m512d corr) {
  const __m512i bits = _mm512_castpd_si512(x);
  const __m512i t = _mm512_sub_epi64(bits, _mm512_set1_epi64(kSqrtHalfBits));
  const __m512d k = _mm512_cvtepi64_pd(_mm512_srai_epi64(t, 52));
  const __m512d z = _mm512_castsi512_pd(
      _mm512_sub_epi64(bits, _mm512_and_si512(t, _mm512_set1_epi64(kExponentMask))));
  const __m512d f = _mm512_sub_pd(z, set(1.0));
  const __m512d s = _mm512_div_pd(f, _mm512_add_pd(set(2.0), f));
  const __m512d s2 = _mm512_mul_pd(s, s), s4 = _mm512_mul_pd(s2, s2);
  const __m512d odd =
      _mm512_fmadd_pd(s4, _mm512_fmadd_pd(s4, set(kLg[5]), set(kLg[3])), set(kLg[1]));
  const __m512d even = _mm512_fmadd_pd(
      s4, _mm512_fmadd_pd(s4, _mm512_fmadd_pd(s4, set(kLg[6]), set(kLg[4])), set(kLg[2])),
      set(kLg[0]));
  const __m512d r = _mm512_fmadd_pd(s2, even, _mm512_mul_pd(s4, odd));
  const __m512d hfsq = _mm512_mul_pd(_mm512_mul_pd(set(0.5), f), f);
  // k ln2_hi - ((hfsq - (s (hfsq + R) + (k ln2_lo + corr))) - f)
  const __m512d low = _mm512_fmadd_pd(k, set(kLn2Lo), corr);
  const __m512d inner = _mm512_fmadd_pd(s, _mm512_add_pd(hfsq, r), low);
  return _mm512_sub_pd(_mm512_mul_pd(k, set(kLn2Hi)), _mm512_sub_pd(_mm512_sub_pd(hfsq, inner), f));
}

// log of 8 lanes. A lane's result never depends on the other lanes.
EQSAT_TARGET_avx512 __m512d log_vector(__m512d x) {
  const __mmask8 in = _mm512_cmp_pd_mask(x, set(DBL_MIN), _CMP_GE_OQ) &
                      _mm512_cmp_pd_mask(x, set(DBL_MAX), _CMP_LE_OQ);
  const __m512d out = log_in_range(x, _mm512_setzero_pd());
  return in == 0xFF ? out : sleef_lanes<Sleef_logd8_u10avx512f>(x, out, in);
}

// log1p of 8 lanes: log(u) + c / u for u = 1 + x rounded and c the
// rounding's error, exact (fdlibm's s_log1p.c: x - (u - 1), or 1 - (u - x)
// from u = 2 on), c / u joining the low part; where u is 1 the result is
// c, which is x itself (-0 and subnormals too). u outside the positive
// normals (x <= -1, NaN, inf) takes SLEEF's.
EQSAT_TARGET_avx512 __m512d log1p_vector(__m512d x) {
  const __m512d one = set(1.0);
  const __m512d u = _mm512_add_pd(one, x);
  const __mmask8 big = _mm512_cmp_pd_mask(u, set(2.0), _CMP_GE_OQ);
  const __m512d c = _mm512_mask_blend_pd(big, _mm512_sub_pd(x, _mm512_sub_pd(u, one)),
                                         _mm512_sub_pd(one, _mm512_sub_pd(u, x)));
  const __mmask8 in = _mm512_cmp_pd_mask(u, set(DBL_MIN), _CMP_GE_OQ) &
                      _mm512_cmp_pd_mask(u, set(DBL_MAX), _CMP_LE_OQ);
  const __mmask8 tiny = _mm512_cmp_pd_mask(u, one, _CMP_EQ_OQ);
  const __m512d out = _mm512_mask_blend_pd(tiny, log_in_range(u, _mm512_div_pd(c, u)), c);
  return in == 0xFF ? out : sleef_lanes<Sleef_log1pd8_u10avx512f>(x, out, in);
}

}  // namespace

void log(const double* x, double* y, std::int64_t n) {
  apply<log_vector>(x, y, n);
}

void log1p(const double* x, double* y, std::int64_t n) {
  apply<log1p_vector>(x, y, n);
}

}  // namespace avx512

namespace avx2 {

namespace {

// v in every lane.
EQSAT_TARGET_avx2 __m256d set(double v) {
  return _mm256_set1_pd(v);
}

// As avx512's log_in_range. AVX2 has no arithmetic 64-bit shift nor
// 64-bit conversion: k's 12 bits u become a double by the 2^52 trick, less
// 4096 where u >= 2048 (k < 0).
EQSAT_TARGET_avx2 __m256d log_in_range(__m256d x, __m256d corr) {
  const __m256i bits = _mm256_castpd_si256(x);
  const __m256i t = _mm256_sub_epi64(bits, _mm256_set1_epi64x(kSqrtHalfBits));
  const __m256i u = _mm256_srli_epi64(t, 52);
  const __m256d two52 = set(0x1p52);
  const __m256d ud =
      _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(u, _mm256_castpd_si256(two52))), two52);
  const __m256d k =
      _mm256_sub_pd(ud, _mm256_and_pd(_mm256_cmp_pd(ud, set(2048.0), _CMP_GE_OQ), set(4096.0)));
  const __m256d z = _mm256_castsi256_pd(
      _mm256_sub_epi64(bits, _mm256_and_si256(t, _mm256_set1_epi64x(kExponentMask))));
  const __m256d f = _mm256_sub_pd(z, set(1.0));
  const __m256d s = _mm256_div_pd(f, _mm256_add_pd(set(2.0), f));
  const __m256d s2 = _mm256_mul_pd(s, s), s4 = _mm256_mul_pd(s2, s2);
  const __m256d odd =
      _mm256_fmadd_pd(s4, _mm256_fmadd_pd(s4, set(kLg[5]), set(kLg[3])), set(kLg[1]));
  const __m256d even = _mm256_fmadd_pd(
      s4, _mm256_fmadd_pd(s4, _mm256_fmadd_pd(s4, set(kLg[6]), set(kLg[4])), set(kLg[2])),
      set(kLg[0]));
  const __m256d r = _mm256_fmadd_pd(s2, even, _mm256_mul_pd(s4, odd));
  const __m256d hfsq = _mm256_mul_pd(_mm256_mul_pd(set(0.5), f), f);
  const __m256d low = _mm256_fmadd_pd(k, set(kLn2Lo), corr);
  const __m256d inner = _mm256_fmadd_pd(s, _mm256_add_pd(hfsq, r), low);
  return _mm256_sub_pd(_mm256_mul_pd(k, set(kLn2Hi)), _mm256_sub_pd(_mm256_sub_pd(hfsq, inner), f));
}

// As avx512's log_vector, the mask a vector.
EQSAT_TARGET_avx2 __m256d log_vector(__m256d x) {
  const __m256d in = _mm256_and_pd(_mm256_cmp_pd(x, set(DBL_MIN), _CMP_GE_OQ),
                                   _mm256_cmp_pd(x, set(DBL_MAX), _CMP_LE_OQ));
  const __m256d out = log_in_range(x, _mm256_setzero_pd());
  return _mm256_movemask_pd(in) == 0xF ? out : sleef_lanes<Sleef_logd4_u10avx2>(x, out, in);
}

// As avx512's log1p_vector.
EQSAT_TARGET_avx2 __m256d log1p_vector(__m256d x) {
  const __m256d one = set(1.0);
  const __m256d u = _mm256_add_pd(one, x);
  const __m256d big = _mm256_cmp_pd(u, set(2.0), _CMP_GE_OQ);
  const __m256d c = _mm256_blendv_pd(_mm256_sub_pd(x, _mm256_sub_pd(u, one)),
                                     _mm256_sub_pd(one, _mm256_sub_pd(u, x)), big);
  const __m256d in = _mm256_and_pd(_mm256_cmp_pd(u, set(DBL_MIN), _CMP_GE_OQ),
                                   _mm256_cmp_pd(u, set(DBL_MAX), _CMP_LE_OQ));
  const __m256d tiny = _mm256_cmp_pd(u, one, _CMP_EQ_OQ);
  const __m256d out = _mm256_blendv_pd(log_in_range(u, _mm256_div_pd(c, u)), c, tiny);
  return _mm256_movemask_pd(in) == 0xF ? out : sleef_lanes<Sleef_log1pd4_u10avx2>(x, out, in);
}

}  // namespace

void log(const double* x, double* y, std::int64_t n) {
  apply<log_vector>(x, y, n);
}

void log1p(const double* x, double* y, std::int64_t n) {
  apply<log1p_vector>(x, y, n);
}

}  // namespace avx2

}  // namespace eqsat::backend::vmath

#endif
