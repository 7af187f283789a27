// The loops of a fused group's binary float ops (add sub mul div maximum
// minimum: every BinaryMath with an array form), its comparisons and
// logical ops (as 0 and 1 of its dtype), `where` and its boolean result,
// compiled for each vector
// level (vector_level.hpp) and chosen per call, so the portable build runs
// them on AVX2 or AVX-512 where the CPU has it. Each element is
// M::scalar(a, b), one IEEE operation (no FMA to contract), so every level
// gives the bits of the scalar function.
#pragma once

#include "vector_level.hpp"

#include <cstdint>

namespace eqsat::backend::detail {

// out[i] = M::scalar(a[i], b[i]) for i < n; a constant operand (a_const,
// b_const) is read once, as a[0] or b[0]. `out` may be `a` or `b`.
#define EQSAT_BINARY_LOOP(level)                                                        \
  template <class M, class T>                                                           \
  EQSAT_TARGET_##level void binary_loop_##level(const T* a, bool a_const, const T* b,   \
                                                bool b_const, T* out, std::int64_t n) { \
    if (a_const && b_const) {                                                           \
      const T v = M::scalar(*a, *b);                                                    \
      for (std::int64_t i = 0; i < n; ++i) out[i] = v;                                  \
    } else if (a_const) {                                                               \
      const T x = *a;                                                                   \
      for (std::int64_t i = 0; i < n; ++i) out[i] = M::scalar(x, b[i]);                 \
    } else if (b_const) {                                                               \
      const T y = *b;                                                                   \
      for (std::int64_t i = 0; i < n; ++i) out[i] = M::scalar(a[i], y);                 \
    } else {                                                                            \
      for (std::int64_t i = 0; i < n; ++i) out[i] = M::scalar(a[i], b[i]);              \
    }                                                                                   \
  }
EQSAT_BINARY_LOOP(sse2)
EQSAT_BINARY_LOOP(avx2)
EQSAT_BINARY_LOOP(avx512)
#undef EQSAT_BINARY_LOOP

// The loop above for the level in use.
template <class M, class T>
void binary_loop(const T* a, bool a_const, const T* b, bool b_const, T* out, std::int64_t n) {
  switch (vector_level()) {
    case VectorLevel::Avx512:
      return binary_loop_avx512<M>(a, a_const, b, b_const, out, n);
    case VectorLevel::Avx2:
      return binary_loop_avx2<M>(a, a_const, b, b_const, out, n);
    case VectorLevel::Sse2:
      return binary_loop_sse2<M>(a, a_const, b, b_const, out, n);
  }
}

// y[i] = M::scalar(x[i]) for i < n, as binary_loop. `y` may be `x`.
#define EQSAT_UNARY_LOOP(level)                                                    \
  template <class M, class T>                                                      \
  EQSAT_TARGET_##level void unary_loop_##level(const T* x, T* y, std::int64_t n) { \
    for (std::int64_t i = 0; i < n; ++i) y[i] = M::scalar(x[i]);                   \
  }
EQSAT_UNARY_LOOP(sse2)
EQSAT_UNARY_LOOP(avx2)
EQSAT_UNARY_LOOP(avx512)
#undef EQSAT_UNARY_LOOP

// The loop above for the level in use.
template <class M, class T>
void unary_loop(const T* x, T* y, std::int64_t n) {
  switch (vector_level()) {
    case VectorLevel::Avx512:
      return unary_loop_avx512<M>(x, y, n);
    case VectorLevel::Avx2:
      return unary_loop_avx2<M>(x, y, n);
    case VectorLevel::Sse2:
      return unary_loop_sse2<M>(x, y, n);
  }
}

// out[i] = c[i] != 0 ? x[i] : y[i] for i < n (`where` in a fused group,
// its condition as 0 and 1 of T); a constant x or y (x_const, y_const) is
// read once, as x[0] or y[0].
#define EQSAT_SELECT_LOOP(level)                                                                  \
  template <class T>                                                                              \
  EQSAT_TARGET_##level void select_loop_##level(const T* c, const T* x, bool x_const, const T* y, \
                                                bool y_const, T* out, std::int64_t n) {           \
    const T x0 = *x, y0 = *y;                                                                     \
    if (!x_const && !y_const) {                                                                   \
      for (std::int64_t i = 0; i < n; ++i) out[i] = c[i] != T(0) ? x[i] : y[i];                   \
    } else if (!x_const) {                                                                        \
      for (std::int64_t i = 0; i < n; ++i) out[i] = c[i] != T(0) ? x[i] : y0;                     \
    } else if (!y_const) {                                                                        \
      for (std::int64_t i = 0; i < n; ++i) out[i] = c[i] != T(0) ? x0 : y[i];                     \
    } else {                                                                                      \
      for (std::int64_t i = 0; i < n; ++i) out[i] = c[i] != T(0) ? x0 : y0;                       \
    }                                                                                             \
  }
EQSAT_SELECT_LOOP(sse2)
EQSAT_SELECT_LOOP(avx2)
EQSAT_SELECT_LOOP(avx512)
#undef EQSAT_SELECT_LOOP

// The loop above for the level in use.
template <class T>
void select_loop(const T* c, const T* x, bool x_const, const T* y, bool y_const, T* out,
                 std::int64_t n) {
  switch (vector_level()) {
    case VectorLevel::Avx512:
      return select_loop_avx512(c, x, x_const, y, y_const, out, n);
    case VectorLevel::Avx2:
      return select_loop_avx2(c, x, x_const, y, y_const, out, n);
    case VectorLevel::Sse2:
      return select_loop_sse2(c, x, x_const, y, y_const, out, n);
  }
}

// y[i] = (x[i] != 0) for i < n: a boolean result a fused group computed
// as 0 and 1 of T.
#define EQSAT_NONZERO_LOOP(level)                                                       \
  template <class T>                                                                    \
  EQSAT_TARGET_##level void nonzero_loop_##level(const T* x, bool* y, std::int64_t n) { \
    for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] != T(0);                           \
  }
EQSAT_NONZERO_LOOP(sse2)
EQSAT_NONZERO_LOOP(avx2)
EQSAT_NONZERO_LOOP(avx512)
#undef EQSAT_NONZERO_LOOP

// The loop above for the level in use.
template <class T>
void nonzero_loop(const T* x, bool* y, std::int64_t n) {
  switch (vector_level()) {
    case VectorLevel::Avx512:
      return nonzero_loop_avx512(x, y, n);
    case VectorLevel::Avx2:
      return nonzero_loop_avx2(x, y, n);
    case VectorLevel::Sse2:
      return nonzero_loop_sse2(x, y, n);
  }
}

}  // namespace eqsat::backend::detail
