// logaddexp and log1mexp a block at a time (elementwise_math.hpp), with
// the vector exp, log and log1p: against a long double reference on random
// arguments and at the edges (±inf, NaN, equal operands, a broadcast
// operand, ±0), in f32 and f64, through whole programs.
#include "backend/program.hpp"
#include "backend/vector_level.hpp"
#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace eqsat;
using namespace eqsat::test;

namespace {

// |got - want| over the float spacing at `scale` (want exact, in long
// double); NaN against NaN and equal infinities are 0.
template <class T>
double error(T got, long double want, long double scale) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(want)) return static_cast<long double>(got) == want ? 0 : 1e9;
  const long double unit = std::max<long double>(
      std::abs(scale) * std::numeric_limits<T>::epsilon(), std::numeric_limits<T>::denorm_min());
  return static_cast<double>(std::abs(static_cast<long double>(got) - want) / unit);
}

long double logaddexp_ref(long double a, long double b) {
  if (a == b) return a + std::log(2.0L);
  const long double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

template <class T>
std::vector<T> arguments(std::mt19937_64& rng, double lo, double hi) {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> v = {0,
                      T(-0.0),
                      inf,
                      -inf,
                      std::numeric_limits<T>::quiet_NaN(),
                      T(-0.6931471805599453),
                      T(1e-30),
                      T(-1e-30),
                      T(-700),
                      T(30),
                      T(-30)};
  std::uniform_real_distribution<double> u(lo, hi);
  while (v.size() < 1500) v.push_back(static_cast<T>(u(rng)));
  return v;
}

template <class T>
ops::Array array_of(const std::vector<T>& v) {
  ops::Array a(ops::dtype_of<T>(), {static_cast<std::int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.data<T>());
  return a;
}

}  // namespace

TEMPLATE_TEST_CASE("logaddexp a block at a time is within 2 ulp of the larger term", "", float,
                   double) {
  using T = TestType;
  std::mt19937_64 rng(41);
  std::vector<T> a = arguments<T>(rng, -40, 40);
  std::vector<T> b = arguments<T>(rng, -40, 40);
  std::shuffle(b.begin(), b.end(), rng);
  for (std::size_t i = 0; i < 40; ++i) b[i * 7] = a[i * 7];  // equal operands, ±inf included
  const auto n = static_cast<std::int64_t>(a.size());
  const DType d = ops::dtype_of<T>();
  TermRef x = input("x", d, {n}), y = input("y", d, {n}), c = input("c", d);
  const T scalar = T(0.25);
  const auto out = backend::evaluate(
      {op(OpKind::Logaddexp, {x, y}), op(OpKind::Logaddexp, {x, c}), op(OpKind::Logaddexp, {c, y})},
      {{x, array_of(a)}, {y, array_of(b)}, {c, ops::Array::filled(d, {}, scalar)}});
  for (int form = 0; form < 3; ++form) {
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const T p = form == 2 ? scalar : a[i], q = form == 1 ? scalar : b[i];
      const long double want = logaddexp_ref(p, q);
      // The sum max + log1p(e^-|a-b|) carries each term's rounding.
      const long double scale = std::abs(static_cast<long double>(std::max(p, q))) + 1;
      const T got = out[form].template data<T>()[i];
      const double e = error(got, want, scale);
      INFO("form " << form << ": logaddexp(" << p << ", " << q << ") = " << got);
      CHECK(e <= 2);
      worst = std::max(worst, e);
    }
    INFO("worst " << worst);
  }
}

TEMPLATE_TEST_CASE("log1mexp a block at a time is within 4 ulp", "", float, double) {
  using T = TestType;
  std::mt19937_64 rng(43);
  std::vector<T> v = arguments<T>(rng, -40, 0);
  for (int k = 1; k < 60; ++k) v.push_back(-std::ldexp(T(1), -k));  // toward 0 from below
  v.push_back(T(0.5));                                              // above 0: NaN
  const auto n = static_cast<std::int64_t>(v.size());
  TermRef x = input("x", ops::dtype_of<T>(), {n});
  const auto out = backend::evaluate({op(OpKind::Log1mexp, {x})}, {{x, array_of(v)}});
  for (std::int64_t i = 0; i < n; ++i) {
    const long double xl = v[i];
    const long double want = v[i] > 0 ? std::numeric_limits<long double>::quiet_NaN()
                             : xl > -0.6931471805599453L ? std::log(-std::expm1(xl))
                                                         : std::log1p(-std::exp(xl));
    const T got = out[0].template data<T>()[i];
    INFO("log1mexp(" << v[i] << ") = " << got);
    if (v[i] == 0 || std::isinf(want))
      CHECK(got == -std::numeric_limits<T>::infinity());
    else
      CHECK(error(got, want, want) <= 4);
  }
}

// The block form takes equal operands to max + log1p(e^0), which is a + ln 2
// only while log1p(1) is ln 2 rounded: at every vector level, both dtypes.
TEMPLATE_TEST_CASE("logaddexp of equal operands is a + ln 2 to the last bit at every vector level",
                   "", float, double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> v = {0,
                      T(-0.0),
                      1,
                      -1,
                      T(1e-30),
                      T(-1e30),
                      T(30.5),
                      inf,
                      -inf,
                      std::numeric_limits<T>::max(),
                      std::numeric_limits<T>::denorm_min()};
  std::mt19937_64 rng(47);
  std::uniform_real_distribution<double> u(-100, 100);
  while (v.size() < 600) v.push_back(static_cast<T>(u(rng)));
  const auto n = static_cast<std::int64_t>(v.size());
  TermRef x = input("x", ops::dtype_of<T>(), {n}), y = input("y", ops::dtype_of<T>(), {n});
  const backend::VectorLevel saved = backend::vector_level();
  for (const auto level :
       {backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512}) {
    if (!backend::set_vector_level(level)) continue;
    const auto out =
        backend::evaluate({op(OpKind::Logaddexp, {x, y})}, {{x, array_of(v)}, {y, array_of(v)}});
    for (std::int64_t i = 0; i < n; ++i) {
      INFO("level " << static_cast<int>(level) << ": logaddexp(" << v[i] << ", " << v[i] << ")");
      CHECK(out[0].template data<T>()[i] == v[i] + T(0.6931471805599453));
    }
  }
  backend::set_vector_level(saved);
}
