// sin and cos of 8 doubles with AVX-512, of 4 with AVX2 (the same steps;
// vector_math_own.hpp). With q
// the integer nearest x * 2/pi, y = x - q pi/2 lies in about [-pi/4, pi/4]
// and is carried as yh + yl (Cody-Waite with pi/2 in three doubles,
// backend/vector_math_constants.py); sin(x) is sin(y), cos(y), -sin(y) or
// -cos(y) as q mod 4 is 0, 1, 2 or 3 (cos: q + 1), chosen per lane. The
// kernels are fdlibm's (k_sin.c and k_cos.c, FreeBSD msun: polynomials
// minimax on [-pi/4, pi/4], |error| below 2^-58 relative, both with six
// coefficients), one polynomial a lane with its coefficients picked per
// lane, the low part yl carried in as fdlibm's kernels do; with FMA the
// rounding of y^2 is carried into cos as well. sincos reduces once and
// evaluates both polynomials in every lane, each with the steps the lanes
// of sin or cos take, so its two results have their bits.
//
// The reduction is exact to about 2^-130 absolute while |x| <= 2^20:
// x - q p1 is exact (both multiples of 2^-53, the difference below 1), q p2
// is split exactly by an FMA, and the sum is an exact fast two-sum; no
// double comes nearer a multiple of pi/2 than about 2^-61 (Muller,
// "Elementary Functions", the worst case of argument reduction). Beyond
// 2^20 (and for infinities and NaN) the lane takes SLEEF's result.
#include "vector_math_own.hpp"

#ifdef EQSAT_VMATH_SLEEF

namespace eqsat::backend::vmath {

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

}  // namespace

namespace avx512 {

namespace {

// v in every lane.
EQSAT_TARGET_avx512 __m512d set(double v) {
  return _mm512_set1_pd(v);
}

// fdlibm's sin coefficient i in the lanes of `odd` clear, cos's where set.
EQSAT_TARGET_avx512 __m512d coefficient(__mmask8 odd, int i) {
  return _mm512_mask_blend_pd(odd, set(kSin[i]), set(kCos[i]));
}

// x reduced: y = x - q pi/2 carried as yh and nl = -yl, z = yh^2, and zq,
// which holds q in its low mantissa bits.
struct Reduction {
  __m512d zq, yh, nl, z;
};

EQSAT_TARGET_avx512 Reduction reduce(__m512d x) {
  const __m512d zq = _mm512_fmadd_pd(x, set(kTwoOverPi), set(kShift));
  const __m512d q = _mm512_sub_pd(zq, set(kShift));
  const __m512d a = _mm512_fnmadd_pd(q, set(kPiOver2[0]), x);  // exact
  const __m512d th = _mm512_mul_pd(q, set(kPiOver2[1]));
  const __m512d tl = _mm512_fmsub_pd(q, set(kPiOver2[1]), th);  // q p2 = th + tl exactly
  // a - th = yh - ((yh - a) + th) exactly (fast two-sum: a is a multiple of
  // 2^-53 when q != 0, th's last bit lies far below).
  const __m512d yh = _mm512_sub_pd(a, th);
  const __m512d nl = _mm512_fmadd_pd(q, set(kPiOver2[2]),
                                     _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(yh, a), th), tl));
  return {zq, yh, nl, _mm512_mul_pd(yh, yh)};
}

// What both kernels add last (below): w = 1 - z/2 rounded, and the low
// terms of sin(y) and cos(y).
struct Tails {
  __m512d w, low_sin, low_cos;
};

EQSAT_TARGET_avx512 Tails tails(const Reduction& r) {
  const __m512d hz = _mm512_mul_pd(set(0.5), r.z);
  const __m512d w = _mm512_sub_pd(set(1.0), hz);
  const __m512d werr = _mm512_sub_pd(_mm512_sub_pd(set(1.0), w), hz);
  const __m512d zl = _mm512_fmsub_pd(r.yh, r.yh, r.z);
  return {w, _mm512_fmsub_pd(hz, r.nl, r.nl),
          _mm512_fmadd_pd(r.yh, r.nl, _mm512_fnmadd_pd(set(0.5), zl, werr))};
}

// The lanes of sin(x) (kQuarter = 0) or cos(x) (1) from sin(y) and cos(y):
// cos(y) where q + kQuarter is odd, the sign flipped where its bit 1 is set;
// sin(-0) = -0 (yh + 0 would give +0).
template <int kQuarter>
EQSAT_TARGET_avx512 __m512d quadrant(__m512d x, __m512d zq, __m512d sin_y, __m512d cos_y) {
  const __m512i q = _mm512_add_epi64(_mm512_castpd_si512(zq), _mm512_set1_epi64(kQuarter));
  const __mmask8 odd = _mm512_test_epi64_mask(q, _mm512_set1_epi64(1));
  const __m512i sign = _mm512_slli_epi64(_mm512_and_si512(q, _mm512_set1_epi64(2)), 62);
  __m512d out = _mm512_mask_blend_pd(odd, sin_y, cos_y);
  out = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(out), sign));
  if constexpr (kQuarter == 0)
    out = _mm512_mask_mov_pd(out, _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_EQ_OQ), x);
  return out;
}

// sin(x) for kQuarter = 0, cos(x) = sin(x + pi/2) for kQuarter = 1, over 8
// lanes with |x| <= 2^20 (others get garbage): one polynomial a lane,
// p(z) = k0 + k1 z + ... + k5 z^5 with fdlibm's S1..S6 or C1..C6 picked per
// lane,
//   sin(y) = yh + (z yh p(z) + yl (1 - z/2))                  (k_sin.c)
//   cos(y) = w + (z^2 p(z) + ((1 - w) - z/2) - yh yl - zl/2)  (k_cos.c)
// with z + zl = yh^2 and w = 1 - z/2 rounded; (1 - w) - z/2 is w's
// rounding error, exactly.
template <int kQuarter>
EQSAT_TARGET_avx512 __m512d sin_cos_in_range(__m512d x) {
  const Reduction r = reduce(x);
  const __m512i q = _mm512_add_epi64(_mm512_castpd_si512(r.zq), _mm512_set1_epi64(kQuarter));
  const __mmask8 odd = _mm512_test_epi64_mask(q, _mm512_set1_epi64(1));
  __m512d p = _mm512_fmadd_pd(r.z, coefficient(odd, 5), coefficient(odd, 4));
  p = _mm512_fmadd_pd(r.z, p, coefficient(odd, 3));
  p = _mm512_fmadd_pd(r.z, p, coefficient(odd, 2));
  p = _mm512_fmadd_pd(r.z, p, coefficient(odd, 1));
  p = _mm512_fmadd_pd(r.z, p, coefficient(odd, 0));
  const Tails t = tails(r);
  const __m512d m = _mm512_mul_pd(r.z, _mm512_mask_blend_pd(odd, r.yh, r.z));
  const __m512d low = _mm512_mask_blend_pd(odd, t.low_sin, t.low_cos);
  const __m512d y = _mm512_add_pd(_mm512_mask_blend_pd(odd, r.yh, t.w), _mm512_fmadd_pd(m, p, low));
  return quadrant<kQuarter>(x, r.zq, y, y);
}

// fdlibm's polynomial with coefficients k (kSin or kCos) at z, the steps
// of sin_cos_in_range's, so that a lane gets the same bits.
EQSAT_TARGET_avx512 __m512d polynomial(__m512d z, const double (&k)[6]) {
  __m512d p = _mm512_fmadd_pd(z, set(k[5]), set(k[4]));
  for (int i = 3; i >= 0; --i) p = _mm512_fmadd_pd(z, p, set(k[i]));
  return p;
}

// sin(x) and cos(x) of 8 lanes with |x| <= 2^20 from one reduction: both
// of sin_cos_in_range's polynomials in every lane, each lane's bits those
// of sin_cos_in_range<0> and <1>.
EQSAT_TARGET_avx512 __attribute__((always_inline)) inline void sincos_in_range(__m512d x,
                                                                               __m512d& s,
                                                                               __m512d& c) {
  const Reduction r = reduce(x);
  const Tails t = tails(r);
  const __m512d sin_y = _mm512_add_pd(
      r.yh, _mm512_fmadd_pd(_mm512_mul_pd(r.z, r.yh), polynomial(r.z, kSin), t.low_sin));
  const __m512d cos_y = _mm512_add_pd(
      t.w, _mm512_fmadd_pd(_mm512_mul_pd(r.z, r.z), polynomial(r.z, kCos), t.low_cos));
  s = quadrant<0>(x, r.zq, sin_y, cos_y);
  c = quadrant<1>(x, r.zq, sin_y, cos_y);
}

// sin or cos of 8 lanes. A lane's result never depends on the other lanes.
template <int kQuarter>
EQSAT_TARGET_avx512 __m512d sin_cos_vector(__m512d x) {
  constexpr auto sleef = kQuarter == 0 ? Sleef_sind8_u10avx512f : Sleef_cosd8_u10avx512f;
  const __mmask8 in = _mm512_cmp_pd_mask(_mm512_abs_pd(x), set(kLimit), _CMP_LE_OQ);
  const __m512d out = sin_cos_in_range<kQuarter>(x);
  return in == 0xFF ? out : sleef_lanes<sleef>(x, out, in);
}

// sin and cos of 8 lanes, the bits of sin_cos_vector<0> and <1>.
EQSAT_TARGET_avx512 __attribute__((always_inline)) inline void sincos_vector(__m512d x, __m512d& s,
                                                                             __m512d& c) {
  const __mmask8 in = _mm512_cmp_pd_mask(_mm512_abs_pd(x), set(kLimit), _CMP_LE_OQ);
  sincos_in_range(x, s, c);
  if (in == 0xFF) return;
  s = sleef_lanes<Sleef_sind8_u10avx512f>(x, s, in);
  c = sleef_lanes<Sleef_cosd8_u10avx512f>(x, c, in);
}

}  // namespace

void sin(const double* x, double* y, std::int64_t n) {
  apply<sin_cos_vector<0>>(x, y, n);
}

void cos(const double* x, double* y, std::int64_t n) {
  apply<sin_cos_vector<1>>(x, y, n);
}

void sincos(const double* x, double* s, double* c, std::int64_t n) {
  apply2<sincos_vector>(x, s, c, n);
}

}  // namespace avx512

namespace avx2 {

namespace {

// v in every lane.
EQSAT_TARGET_avx2 __m256d set(double v) {
  return _mm256_set1_pd(v);
}

// fdlibm's sin coefficient i in the lanes of `odd` clear, cos's where set.
EQSAT_TARGET_avx2 __m256d coefficient(__m256d odd, int i) {
  return _mm256_blendv_pd(set(kSin[i]), set(kCos[i]), odd);
}

// As avx512's Reduction and reduce, 4 lanes.
struct Reduction {
  __m256d zq, yh, nl, z;
};

EQSAT_TARGET_avx2 Reduction reduce(__m256d x) {
  const __m256d zq = _mm256_fmadd_pd(x, set(kTwoOverPi), set(kShift));
  const __m256d q = _mm256_sub_pd(zq, set(kShift));
  const __m256d a = _mm256_fnmadd_pd(q, set(kPiOver2[0]), x);  // exact
  const __m256d th = _mm256_mul_pd(q, set(kPiOver2[1]));
  const __m256d tl = _mm256_fmsub_pd(q, set(kPiOver2[1]), th);  // q p2 = th + tl exactly
  const __m256d yh = _mm256_sub_pd(a, th);
  const __m256d nl = _mm256_fmadd_pd(q, set(kPiOver2[2]),
                                     _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(yh, a), th), tl));
  return {zq, yh, nl, _mm256_mul_pd(yh, yh)};
}

// As avx512's Tails and tails.
struct Tails {
  __m256d w, low_sin, low_cos;
};

EQSAT_TARGET_avx2 Tails tails(const Reduction& r) {
  const __m256d hz = _mm256_mul_pd(set(0.5), r.z);
  const __m256d w = _mm256_sub_pd(set(1.0), hz);
  const __m256d werr = _mm256_sub_pd(_mm256_sub_pd(set(1.0), w), hz);
  const __m256d zl = _mm256_fmsub_pd(r.yh, r.yh, r.z);
  return {w, _mm256_fmsub_pd(hz, r.nl, r.nl),
          _mm256_fmadd_pd(r.yh, r.nl, _mm256_fnmadd_pd(set(0.5), zl, werr))};
}

// As avx512's quadrant (the masks are vectors).
template <int kQuarter>
EQSAT_TARGET_avx2 __m256d quadrant(__m256d x, __m256d zq, __m256d sin_y, __m256d cos_y) {
  const __m256i q = _mm256_add_epi64(_mm256_castpd_si256(zq), _mm256_set1_epi64x(kQuarter));
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256d odd = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(q, one), one));
  const __m256i sign = _mm256_slli_epi64(_mm256_and_si256(q, _mm256_set1_epi64x(2)), 62);
  __m256d out = _mm256_blendv_pd(sin_y, cos_y, odd);
  out = _mm256_castsi256_pd(_mm256_xor_si256(_mm256_castpd_si256(out), sign));
  if constexpr (kQuarter == 0)
    out = _mm256_blendv_pd(out, x, _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_EQ_OQ));
  return out;
}

// As avx512's sin_cos_in_range, 4 lanes.
template <int kQuarter>
EQSAT_TARGET_avx2 __m256d sin_cos_in_range(__m256d x) {
  const Reduction r = reduce(x);
  const __m256i q = _mm256_add_epi64(_mm256_castpd_si256(r.zq), _mm256_set1_epi64x(kQuarter));
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256d odd = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(q, one), one));
  __m256d p = _mm256_fmadd_pd(r.z, coefficient(odd, 5), coefficient(odd, 4));
  p = _mm256_fmadd_pd(r.z, p, coefficient(odd, 3));
  p = _mm256_fmadd_pd(r.z, p, coefficient(odd, 2));
  p = _mm256_fmadd_pd(r.z, p, coefficient(odd, 1));
  p = _mm256_fmadd_pd(r.z, p, coefficient(odd, 0));
  const Tails t = tails(r);
  const __m256d m = _mm256_mul_pd(r.z, _mm256_blendv_pd(r.yh, r.z, odd));
  const __m256d low = _mm256_blendv_pd(t.low_sin, t.low_cos, odd);
  const __m256d y = _mm256_add_pd(_mm256_blendv_pd(r.yh, t.w, odd), _mm256_fmadd_pd(m, p, low));
  return quadrant<kQuarter>(x, r.zq, y, y);
}

// As avx512's polynomial.
EQSAT_TARGET_avx2 __m256d polynomial(__m256d z, const double (&k)[6]) {
  __m256d p = _mm256_fmadd_pd(z, set(k[5]), set(k[4]));
  for (int i = 3; i >= 0; --i) p = _mm256_fmadd_pd(z, p, set(k[i]));
  return p;
}

// As avx512's sincos_in_range, 4 lanes.
EQSAT_TARGET_avx2 __attribute__((always_inline)) inline void sincos_in_range(__m256d x, __m256d& s,
                                                                             __m256d& c) {
  const Reduction r = reduce(x);
  const Tails t = tails(r);
  const __m256d sin_y = _mm256_add_pd(
      r.yh, _mm256_fmadd_pd(_mm256_mul_pd(r.z, r.yh), polynomial(r.z, kSin), t.low_sin));
  const __m256d cos_y = _mm256_add_pd(
      t.w, _mm256_fmadd_pd(_mm256_mul_pd(r.z, r.z), polynomial(r.z, kCos), t.low_cos));
  s = quadrant<0>(x, r.zq, sin_y, cos_y);
  c = quadrant<1>(x, r.zq, sin_y, cos_y);
}

// sin or cos of 4 lanes. A lane's result never depends on the other lanes.
template <int kQuarter>
EQSAT_TARGET_avx2 __m256d sin_cos_vector(__m256d x) {
  constexpr auto sleef = kQuarter == 0 ? Sleef_sind4_u10avx2 : Sleef_cosd4_u10avx2;
  const __m256d abs = _mm256_andnot_pd(set(-0.0), x);
  const __m256d in = _mm256_cmp_pd(abs, set(kLimit), _CMP_LE_OQ);
  const __m256d out = sin_cos_in_range<kQuarter>(x);
  return _mm256_movemask_pd(in) == 0xF ? out : sleef_lanes<sleef>(x, out, in);
}

// sin and cos of 4 lanes, the bits of sin_cos_vector<0> and <1>.
EQSAT_TARGET_avx2 __attribute__((always_inline)) inline void sincos_vector(__m256d x, __m256d& s,
                                                                           __m256d& c) {
  const __m256d in = _mm256_cmp_pd(_mm256_andnot_pd(set(-0.0), x), set(kLimit), _CMP_LE_OQ);
  sincos_in_range(x, s, c);
  if (_mm256_movemask_pd(in) == 0xF) return;
  s = sleef_lanes<Sleef_sind4_u10avx2>(x, s, in);
  c = sleef_lanes<Sleef_cosd4_u10avx2>(x, c, in);
}

}  // namespace

void sin(const double* x, double* y, std::int64_t n) {
  apply<sin_cos_vector<0>>(x, y, n);
}

void cos(const double* x, double* y, std::int64_t n) {
  apply<sin_cos_vector<1>>(x, y, n);
}

void sincos(const double* x, double* s, double* c, std::int64_t n) {
  apply2<sincos_vector>(x, s, c, n);
}

}  // namespace avx2

}  // namespace eqsat::backend::vmath

#endif
