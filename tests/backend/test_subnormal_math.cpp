// exp, log and sqrt at the edges of the float range: arguments whose exp is
// subnormal or zero, subnormal arguments of log, and infinities — on arrays
// long enough to take the vectorized path, compared with the C library.
#include "backend/program.hpp"
#include "backend/subnormal_math.hpp"
#include "ops/term.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace eqsat;
using ops::DType;

namespace {

// Bitwise agreement with the C library, NaN agreeing with NaN.
template <class T>
bool same(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

template <class T>
std::vector<T> edge_values() {
  const T inf = std::numeric_limits<T>::infinity();
  const T low = std::log(std::numeric_limits<T>::min());  // -708.4 or -87.3
  std::vector<T> v = {-inf, inf, std::numeric_limits<T>::quiet_NaN(), T(0), T(-0.0), T(1)};
  for (int k = -40; k <= 40; ++k) v.push_back(low + T(k) * T(0.5));  // across the subnormal range
  v.push_back(std::numeric_limits<T>::denorm_min());
  v.push_back(std::numeric_limits<T>::min() / T(3));
  while (v.size() < 1100) v.push_back(T(v.size() % 7) - T(3));  // several blocks
  return v;
}

}  // namespace

TEMPLATE_TEST_CASE("exact_exp and exact_log agree with the C library everywhere", "", float,
                   double) {
  const std::vector<TestType> x = edge_values<TestType>();
  std::vector<TestType> y(x.size());
  backend::exact_exp(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("exp(" << x[i] << ")");
    // Eigen's polynomial and the C library may differ by an ulp on normal results.
    const TestType want = std::exp(x[i]);
    CHECK((same(y[i], want) ||
           std::abs(y[i] - want) <= 4 * std::numeric_limits<TestType>::epsilon() * std::abs(want)));
  }
  std::vector<TestType> z = x;
  backend::exact_log(z.data(), z.data(), static_cast<std::int64_t>(z.size()));  // in place
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("log(" << x[i] << ")");
    const TestType want = std::log(x[i]);
    CHECK((same(z[i], want) ||
           std::abs(z[i] - want) <= 4 * std::numeric_limits<TestType>::epsilon() * std::abs(want)));
  }
}

TEST_CASE("exp underflows to zero, log of a subnormal is finite, sqrt of inf is inf") {
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
