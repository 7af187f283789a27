// The vectorized transcendentals (vector_math.hpp): within 1 ulp of a
// higher-precision reference on random arguments over each function's
// range, and exact at the edges — arguments whose exp is subnormal or zero,
// subnormal arguments of log, infinities and NaN — on arrays long enough to
// take the vector path, plus the same edges through whole programs.
#include "backend/program.hpp"
#include "backend/vector_math.hpp"
#include "ops/term.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

using namespace eqsat;
using ops::DType;

namespace {

// Bitwise agreement, NaN agreeing with NaN.
template <class T>
bool same(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// |got - want| in units of the last place of T at want (want exact, in a
// wider type); 0 when both are the same infinity or NaN.
template <class T>
double ulps(T got, long double want) {
  if (std::isnan(got) && std::isnan(want)) return 0;
  if (std::isinf(want) || std::isinf(got)) return static_cast<long double>(got) == want ? 0 : 1e9;
  const T rounded = static_cast<T>(want);
  const T up = std::nextafter(std::abs(rounded), std::numeric_limits<T>::infinity());
  const long double unit = std::max<long double>(static_cast<long double>(up) - std::abs(rounded),
                                                 std::numeric_limits<T>::denorm_min());
  return static_cast<double>(std::abs(static_cast<long double>(got) - want) / unit);
}

template <class T>
using Kernel = void (*)(const T*, T*, std::int64_t);

template <class T>
struct Function {
  const char* name;
  Kernel<T> kernel;
  long double (*reference)(long double);
  double lo, hi;  // argument range
  double max_ulps;
};

long double sigmoid_ref(long double x) {
  return 1.0L / (1.0L + std::exp(-x));
}

template <class T>
std::vector<Function<T>> functions() {
  const double big = std::is_same_v<T, double> ? 700 : 85;
  return {
      {"exp", backend::vmath::exp, [](long double x) { return std::exp(x); }, -big, big, 1},
      {"log", backend::vmath::log, [](long double x) { return std::log(x); }, 1e-30, 1e30, 1},
      {"sin", backend::vmath::sin, [](long double x) { return std::sin(x); }, -100, 100, 1},
      {"cos", backend::vmath::cos, [](long double x) { return std::cos(x); }, -100, 100, 1},
      {"tanh", backend::vmath::tanh, [](long double x) { return std::tanh(x); }, -20, 20, 1},
      {"log1p", backend::vmath::log1p, [](long double x) { return std::log1p(x); }, -0.999, 1e6, 1},
      {"expm1", backend::vmath::expm1, [](long double x) { return std::expm1(x); }, -40, big, 1},
      // below 0 exp's error passes through the quotient
      {"sigmoid", backend::vmath::sigmoid, sigmoid_ref, -big, big, 2},
      {"erf", backend::vmath::erf, [](long double x) { return std::erf(x); }, -8, 8, 1},
  };
}

template <class T>
std::vector<T> edge_values() {
  const T inf = std::numeric_limits<T>::infinity();
  const T low = std::log(std::numeric_limits<T>::min());  // -708.4 or -87.3
  std::vector<T> v = {-inf, inf, std::numeric_limits<T>::quiet_NaN(), T(0), T(-0.0), T(1)};
  for (int k = -40; k <= 40; ++k) v.push_back(low + T(k) * T(0.5));  // across the subnormal range
  v.push_back(std::numeric_limits<T>::denorm_min());
  v.push_back(std::numeric_limits<T>::min() / T(3));
  v.push_back(-std::numeric_limits<T>::denorm_min());
  v.push_back(std::numeric_limits<T>::max());
  while (v.size() < 1100) v.push_back(T(v.size() % 7) - T(3));  // several blocks
  return v;
}

}  // namespace

TEMPLATE_TEST_CASE("vector math is within its ulp bound on random arguments", "", float, double) {
  std::mt19937_64 rng(7);
  for (const auto& f : functions<TestType>()) {
    // Log-uniform magnitudes for wide positive ranges, uniform otherwise.
    std::vector<TestType> x(4099);
    for (auto& v : x) {
      if (f.lo > 0)
        v = static_cast<TestType>(
            std::exp(std::uniform_real_distribution<double>(std::log(f.lo), std::log(f.hi))(rng)));
      else
        v = static_cast<TestType>(std::uniform_real_distribution<double>(f.lo, f.hi)(rng));
    }
    std::vector<TestType> y(x.size());
    f.kernel(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
    double worst = 0;
    TestType worst_x = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double e = ulps(y[i], f.reference(x[i]));
      if (e > worst) worst = e, worst_x = x[i];
    }
    INFO(f.name << ": worst " << worst << " ulp at " << worst_x);
    CHECK(worst <= f.max_ulps);
  }
}

TEMPLATE_TEST_CASE("vector math agrees with the C library at the edges", "", float, double) {
  const std::vector<TestType> x = edge_values<TestType>();
  const auto n = static_cast<std::int64_t>(x.size());
  for (const auto& f : functions<TestType>()) {
    std::vector<TestType> y = x;
    f.kernel(y.data(), y.data(), n);  // in place
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO(f.name << "(" << x[i] << ") = " << y[i]);
      const long double want = f.reference(x[i]);
      // Infinities, NaN and zeros exactly; the rest within the ulp bound.
      if (std::isnan(want) || std::isinf(want) || want == 0)
        CHECK(same(static_cast<long double>(y[i]), want));
      else
        CHECK(ulps(y[i], want) <= f.max_ulps);
    }
  }
}

TEST_CASE("exp underflows to zero and log of a subnormal is finite in programs") {
  const std::int64_t n = 18;  // past one vector register
  ops::TermRef y = ops::Term::input("y", {DType::F64, {n}});
  ops::TermRef x = ops::Term::input("x", {DType::F32, {n}});
  ops::Array yv = ops::Array::filled(DType::F64, {n}, -800.0);
  yv.data<double>()[1] = -745.1;  // e^x is the smallest subnormal
  ops::TermRef z = ops::Term::input("z", {DType::F64, {n}});
  ops::Array zv = ops::Array::filled(DType::F64, {n}, -800.0);
  zv.data<double>()[1] = 0.0;
  ops::Array xv = ops::Array::filled(DType::F32, {n}, std::numeric_limits<double>::infinity());
  const auto out = backend::evaluate(
      {ops::Term::make(ops::OpKind::Exp, {}, {y}),
       ops::Term::make(ops::OpKind::Log, {}, {ops::Term::make(ops::OpKind::Exp, {}, {y})}),
       ops::Term::make(ops::OpKind::Sqrt, {}, {x}), ops::Term::make(ops::OpKind::Softmax, {}, {z})},
      {{y, yv}, {x, xv}, {z, zv}});
  CHECK(out[0].data<double>()[0] == 0.0);
  CHECK(out[0].data<double>()[1] == std::numeric_limits<double>::denorm_min());
  CHECK(out[1].data<double>()[0] == -std::numeric_limits<double>::infinity());
  CHECK(out[1].data<double>()[1] == Approx(std::log(std::numeric_limits<double>::denorm_min())));
  CHECK(std::isinf(out[2].data<float>()[0]));
  CHECK(out[3].data<double>()[0] == 0.0);  // e^-800 underflows
  CHECK(out[3].data<double>()[1] == 1.0);
}
