// sin and cos of 8 doubles with AVX-512 (vector_math_avx512.hpp). With q
// the integer nearest x * 2/pi, y = x - q pi/2 lies in about [-pi/4, pi/4]
// and is carried as yh + yl (Cody-Waite with pi/2 in three doubles,
// backend/vector_math_constants.py); sin(x) is sin(y), cos(y), -sin(y) or
// -cos(y) as q mod 4 is 0, 1, 2 or 3 (cos: q + 1), chosen per lane. Both
// kernels are fdlibm's polynomials (k_sin.c and k_cos.c, FreeBSD msun:
// minimax on [-pi/4, pi/4], |error| below 2^-58 relative), with the low
// part yl carried into them as fdlibm's kernels do; with FMA the rounding
// of y^2 is carried into cos as well.
//
// The reduction is exact to about 2^-130 absolute while |x| <= 2^20:
// x - q p1 is exact (both multiples of 2^-53, the difference below 1), q p2
// is split exactly by an FMA, and the sum is an exact two-sum; the nearest a
// double below 2^20 comes to a multiple of pi/2 is far above that. Beyond
// 2^20 (and for infinities and NaN) the lane takes SLEEF's result.
#include "vector_math_avx512.hpp"

#ifdef EQSAT_VMATH_SLEEF

namespace eqsat::backend::vmath::avx512 {

namespace {

constexpr double kLimit = 0x1p20;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
constexpr double kPiOver2[3] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54,
                                -0x1.f1976b7ed8fbcp-110};
// 1.5 * 2^52: x * 2/pi + kShift holds q in its low mantissa bits.
constexpr double kShift = 0x1.8p52;
// fdlibm's k_sin.c, S1..S6 (bits 0xBFC5555555555549 ...).
constexpr double kSin[6] = {-0x1.5555555555549p-3, 0x1.111111110f8a6p-7,   -0x1.a01a019c161d5p-13,
                            0x1.71de357b1fe7dp-19, -0x1.ae5e68a2b9cebp-26, 0x1.5d93a5acfd57cp-33};
// fdlibm's k_cos.c, C1..C6 (bits 0x3FA555555555554C ...).
constexpr double kCos[6] = {0x1.555555555554cp-5,   -0x1.6c16c16c15177p-10, 0x1.a01a019cb159p-16,
                            -0x1.27e4f809c52adp-22, 0x1.1ee9ebdb4b1c4p-29,  -0x1.8fae9be8838d4p-37};

// v in every lane.
EQSAT_TARGET_avx512 __m512d set(double v) {
  return _mm512_set1_pd(v);
}

// sin(x) for kQuarter = 0, cos(x) = sin(x + pi/2) for kQuarter = 1, over 8
// lanes with |x| <= 2^20 (others get garbage).
template <int kQuarter>
EQSAT_TARGET_avx512 __m512d sin_cos_in_range(__m512d x) {
  const __m512d zq = _mm512_fmadd_pd(x, set(kTwoOverPi), set(kShift));
  const __m512d q = _mm512_sub_pd(zq, set(kShift));
  // y = x - q pi/2 = yh + yl.
  const __m512d a = _mm512_fnmadd_pd(q, set(kPiOver2[0]), x);  // exact
  const __m512d th = _mm512_mul_pd(q, set(kPiOver2[1]));
  const __m512d tl = _mm512_fmsub_pd(q, set(kPiOver2[1]), th);  // q p2 = th + tl exactly
  const __m512d yh = _mm512_sub_pd(a, th);
  const __m512d bv = _mm512_sub_pd(yh, a);  // two-sum: a - th = yh + e exactly
  const __m512d e = _mm512_sub_pd(_mm512_sub_pd(a, _mm512_sub_pd(yh, bv)), _mm512_add_pd(th, bv));
  const __m512d yl = _mm512_fnmadd_pd(q, set(kPiOver2[2]), _mm512_sub_pd(e, tl));
  const __m512d z = _mm512_mul_pd(yh, yh);
  const __m512d zl = _mm512_fmsub_pd(yh, yh, z);  // yh^2 = z + zl exactly
  // sin(y) = yh + (v S1 + (yl - z (yl/2 - v rs))), v = yh^3 (k_sin.c).
  __m512d rs = _mm512_fmadd_pd(z, set(kSin[5]), set(kSin[4]));
  rs = _mm512_fmadd_pd(z, rs, set(kSin[3]));
  rs = _mm512_fmadd_pd(z, rs, set(kSin[2]));
  rs = _mm512_fmadd_pd(z, rs, set(kSin[1]));
  const __m512d v = _mm512_mul_pd(z, yh);
  const __m512d s1 = _mm512_fnmadd_pd(v, rs, _mm512_mul_pd(set(0.5), yl));
  const __m512d s2 = _mm512_fnmadd_pd(z, s1, yl);
  const __m512d sin_y = _mm512_add_pd(yh, _mm512_fmadd_pd(v, set(kSin[0]), s2));
  // cos(y) = w + (((1 - w) - z/2) + (z^2 rc - (yh yl + zl/2))), w = 1 - z/2
  // (k_cos.c; 1 - w - z/2 is w's rounding error, exactly).
  __m512d rc = _mm512_fmadd_pd(z, set(kCos[5]), set(kCos[4]));
  rc = _mm512_fmadd_pd(z, rc, set(kCos[3]));
  rc = _mm512_fmadd_pd(z, rc, set(kCos[2]));
  rc = _mm512_fmadd_pd(z, rc, set(kCos[1]));
  rc = _mm512_fmadd_pd(z, rc, set(kCos[0]));
  const __m512d hz = _mm512_mul_pd(set(0.5), z);
  const __m512d w = _mm512_sub_pd(set(1.0), hz);
  const __m512d werr = _mm512_sub_pd(_mm512_sub_pd(set(1.0), w), hz);
  const __m512d low = _mm512_fmadd_pd(yh, yl, _mm512_mul_pd(set(0.5), zl));
  const __m512d c1 = _mm512_fmsub_pd(z, _mm512_mul_pd(z, rc), low);
  const __m512d cos_y = _mm512_add_pd(w, _mm512_add_pd(werr, c1));
  // Per lane: cos(y) for odd q + kQuarter, the sign flipped when bit 1 is set.
  const __m512i quadrant = _mm512_add_epi64(_mm512_castpd_si512(zq), _mm512_set1_epi64(kQuarter));
  const __mmask8 odd = _mm512_test_epi64_mask(quadrant, _mm512_set1_epi64(1));
  const __m512i sign = _mm512_slli_epi64(_mm512_and_si512(quadrant, _mm512_set1_epi64(2)), 62);
  __m512d out = _mm512_mask_blend_pd(odd, sin_y, cos_y);
  out = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(out), sign));
  // sin(-0) = -0 (yh + 0 would give +0).
  if constexpr (kQuarter == 0)
    out = _mm512_mask_mov_pd(out, _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_EQ_OQ), x);
  return out;
}

// sin or cos of 8 lanes: SLEEF's in the lanes where |x| > 2^20 or x is NaN
// (a lane's result never depends on the other lanes).
template <int kQuarter>
EQSAT_TARGET_avx512 __m512d sin_cos_vector(__m512d x) {
  const __mmask8 in = _mm512_cmp_pd_mask(_mm512_abs_pd(x), set(kLimit), _CMP_LE_OQ);
  const __m512d out = sin_cos_in_range<kQuarter>(x);
  if (in == 0xFF) return out;
  return _mm512_mask_blend_pd(
      in, kQuarter == 0 ? Sleef_sind8_u10avx512f(x) : Sleef_cosd8_u10avx512f(x), out);
}

}  // namespace

void sin(const double* x, double* y, std::int64_t n) {
  apply<sin_cos_vector<0>>(x, y, n);
}

void cos(const double* x, double* y, std::int64_t n) {
  apply<sin_cos_vector<1>>(x, y, n);
}

}  // namespace eqsat::backend::vmath::avx512

#endif
