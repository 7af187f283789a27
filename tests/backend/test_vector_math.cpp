// The vectorized transcendentals (vector_math.hpp): within 1 ulp of a
// higher-precision reference on random arguments over each function's
// range, and exact at the edges — arguments whose exp is subnormal or zero,
// subnormal arguments of log, infinities and NaN — on arrays long enough to
// take the vector path, plus the same edges through whole programs; at
// every vector level this CPU has (vector_level.hpp), and the levels agree.
// f64 exp, sin and cos (our own kernels at AVX2 and AVX-512,
// vector_math_own.hpp) also on every class of argument (uniform in the
// bits, near multiples of pi/2, near overflow and underflow, subnormal); a
// lane's result does not depend on the other lanes, and both levels give
// the same bits.
#include "backend/program.hpp"
#include "backend/vector_level.hpp"
#include "backend/vector_math.hpp"
#include "ops/term.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
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
// wider type); 0 when both are NaN or got is the infinity want rounds to.
template <class T>
double ulps(T got, long double want) {
  if (std::isnan(got) && std::isnan(want)) return 0;
  const T rounded = static_cast<T>(want);  // inf past T's largest value
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : 1e9;
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

// Sets a vector level for a scope, then restores the one before.
class LevelScope {
 public:
  explicit LevelScope(backend::VectorLevel level)
      : saved_(backend::vector_level()), ok_(backend::set_vector_level(level)) {}
  ~LevelScope() { backend::set_vector_level(saved_); }
  LevelScope(const LevelScope&) = delete;
  LevelScope& operator=(const LevelScope&) = delete;
  bool ok() const { return ok_; }

 private:
  backend::VectorLevel saved_;
  bool ok_;
};

}  // namespace

TEMPLATE_TEST_CASE("vector math is within its ulp bound on random arguments", "", float, double) {
  const backend::VectorLevel level = GENERATE(
      backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512);
  const LevelScope scope(level);
  if (!scope.ok()) return;  // this CPU lacks the level
  INFO("level " << backend::vector_level_name(level));
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
  const backend::VectorLevel level = GENERATE(
      backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512);
  const LevelScope scope(level);
  if (!scope.ok()) return;  // this CPU lacks the level
  INFO("level " << backend::vector_level_name(level));
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

TEMPLATE_TEST_CASE("every vector level is within one ulp of the SSE2 level", "", float, double) {
  // The AVX2 and AVX-512 routines use FMA, so exp, sin and cos (and sigmoid
  // through exp) may round differently from SSE2's in the last place: at
  // most one unit apart (two for sigmoid); NaN, infinities and zeros alike.
  // Random arguments over each function's range, the edges, and odd
  // lengths (the padded tail of each vector width).
  std::mt19937_64 rng(11);
  std::vector<TestType> x = edge_values<TestType>();
  for (int i = 0; i < 3000; ++i)
    x.push_back(static_cast<TestType>(std::uniform_real_distribution<double>(-30, 30)(rng)));
  for (const auto& f : functions<TestType>()) {
    const double bound = std::string(f.name) == "sigmoid" ? 2 : 1;
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{7}, std::int64_t{13},
                                 std::int64_t{31}, static_cast<std::int64_t>(x.size())}) {
      std::vector<TestType> want(n);
      {
        const LevelScope sse2(backend::VectorLevel::Sse2);
        f.kernel(x.data(), want.data(), n);
      }
      for (const auto level : {backend::VectorLevel::Avx2, backend::VectorLevel::Avx512}) {
        const LevelScope scope(level);
        if (!scope.ok()) continue;
        std::vector<TestType> got(n);
        f.kernel(x.data(), got.data(), n);
        for (std::int64_t i = 0; i < n; ++i) {
          INFO(f.name << "(" << x[i] << ") at " << backend::vector_level_name(level) << ": "
                      << got[i] << ", SSE2 " << want[i]);
          if (std::isnan(want[i]) || std::isinf(want[i]) || want[i] == 0)
            CHECK(same(got[i], want[i]));
          else
            CHECK(ulps(got[i], static_cast<long double>(want[i])) <= bound);
        }
      }
    }
  }
}

// A double with uniform random bits and magnitude at most `limit`.
double bits_below(std::mt19937_64& rng, double limit) {
  for (;;) {
    const double v = std::bit_cast<double>(rng());
    if (std::abs(v) <= limit) return v;
  }
}

// Within 4 ulp of k pi/2 for a random |k| <= kmax: where sin or cos is
// nearly 0 and the argument reduction cancels most.
double near_half_pi(std::mt19937_64& rng, std::int64_t kmax) {
  const auto k = std::uniform_int_distribution<std::int64_t>(-kmax, kmax)(rng);
  double v = static_cast<double>(static_cast<long double>(k) * 1.5707963267948966192313216916L);
  for (int s = std::uniform_int_distribution<int>(-4, 4)(rng); s != 0; s -= s > 0 ? 1 : -1)
    v = std::nextafter(v, s > 0 ? INFINITY : -INFINITY);
  return v;
}

TEST_CASE("f64 exp, log, log1p, sin, cos and tanh are within 1 ulp on every class of argument") {
  // Our own kernels at AVX2 and AVX-512 (vector_math_own.hpp), SLEEF's at
  // SSE2: uniform in the bits (over each kernel's range and over all
  // doubles), uniform in value where users are, near multiples of pi/2,
  // near exp's overflow and underflow, subnormal.
  using Draw = std::function<double(std::mt19937_64&)>;
  const auto in = [](double lo, double hi) -> Draw {
    return [=](std::mt19937_64& r) { return std::uniform_real_distribution<double>(lo, hi)(r); };
  };
  const Draw any = [](std::mt19937_64& r) { return std::bit_cast<double>(r()); };
  const Draw subnormal = [](std::mt19937_64& r) {
    return std::bit_cast<double>(r() & 0x800fffffffffffffULL);
  };
  const std::vector<std::pair<const char*, Draw>> exp_args = {
      {"bits, |x| <= 708", [](auto& r) { return bits_below(r, 708); }},
      {"[-708, 708]", in(-708, 708)},
      {"[-10, 10]", in(-10, 10)},
      {"[700, 709.78]", in(700, 709.78)},
      {"[709.78, 710]", in(709.78, 710)},
      {"[709.78271, 709.782713] (the largest finite results)", in(709.78271, 709.782713)},
      {"[-745.2, -700]", in(-745.2, -700)},
      {"subnormal", subnormal},
      {"any", any},
  };
  const std::vector<std::pair<const char*, Draw>> trig_args = {
      {"bits, |x| <= 2^20", [](auto& r) { return bits_below(r, 0x1p20); }},
      {"[-1000, 1000]", in(-1000, 1000)},
      {"[-10, 10]", in(-10, 10)},
      {"near k pi/2, |k| <= 1000", [](auto& r) { return near_half_pi(r, 1000); }},
      {"near k pi/2, |k| <= 6e5", [](auto& r) { return near_half_pi(r, 600000); }},
      {"near 2^20", in(0x1p20 - 4, 0x1p20 + 4)},
      {"subnormal", subnormal},
      {"any", any},
  };
  // tanh: around 1/8, where our kernel turns from its series to its
  // quotient, and 19 to 21, where it rounds to 1.
  const std::vector<std::pair<const char*, Draw>> tanh_args = {
      {"bits, |x| <= 20", [](auto& r) { return bits_below(r, 20); }},
      {"[-20, 20]", in(-20, 20)},
      {"[-1, 1]", in(-1, 1)},
      {"[0.124, 0.126]", in(0.124, 0.126)},
      {"[-0.5, -0.125]", in(-0.5, -0.125)},
      {"[18, 21]", in(18, 21)},
      {"subnormal", subnormal},
      {"any", any},
  };
  // log: around sqrt(2)/2 and sqrt(2), where our kernel's z wraps, and
  // near 1, where log(x) is nearly x - 1; positives over the whole range.
  const Draw positive = [](std::mt19937_64& r) {
    return std::bit_cast<double>(r() & 0x7fffffffffffffffULL);
  };
  const std::vector<std::pair<const char*, Draw>> log_args = {
      {"bits, positive", positive},     {"[0, 10]", in(0, 10)},
      {"[0.5, 2]", in(0.5, 2)},         {"[0.70, 0.72]", in(0.70, 0.72)},
      {"[1.40, 1.42]", in(1.40, 1.42)}, {"[0.999, 1.001]", in(0.999, 1.001)},
      {"subnormal", subnormal},         {"any", any},
  };
  // log1p: where 1 + x rounds (tiny x, x near -1, x from 1 on), around 0.
  const std::vector<std::pair<const char*, Draw>> log1p_args = {
      {"bits, positive", positive},       {"[-1, 1]", in(-1, 1)},
      {"[-1, -0.5]", in(-1, -0.5)},       {"[-1e-8, 1e-8]", in(-1e-8, 1e-8)},
      {"[1e-10, 1e-5]", in(1e-10, 1e-5)}, {"[1, 1000]", in(1, 1000)},
      {"subnormal", subnormal},           {"any", any},
  };
  struct Case {
    const char* name;
    Kernel<double> kernel;
    long double (*reference)(long double);
    const std::vector<std::pair<const char*, Draw>>& args;
  };
  const Case cases[] = {
      {"exp", backend::vmath::exp, [](long double x) { return std::exp(x); }, exp_args},
      {"log", backend::vmath::log, [](long double x) { return std::log(x); }, log_args},
      {"log1p", backend::vmath::log1p, [](long double x) { return std::log1p(x); }, log1p_args},
      {"sin", backend::vmath::sin, [](long double x) { return std::sin(x); }, trig_args},
      {"cos", backend::vmath::cos, [](long double x) { return std::cos(x); }, trig_args},
      {"tanh", backend::vmath::tanh, [](long double x) { return std::tanh(x); }, tanh_args},
  };
  const backend::VectorLevel level = GENERATE(
      backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512);
  const LevelScope scope(level);
  if (!scope.ok()) return;  // this CPU lacks the level
  std::mt19937_64 rng(28);
  std::vector<double> x(20003), y(x.size());
  for (const Case& c : cases) {
    for (const auto& [what, draw] : c.args) {
      for (auto& v : x) v = draw(rng);
      c.kernel(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
      double worst = 0, worst_x = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = ulps(y[i], c.reference(x[i]));
        if (e > worst) worst = e, worst_x = x[i];
      }
      INFO(c.name << " on " << what << " at " << backend::vector_level_name(level) << ": worst "
                  << worst << " ulp at " << worst_x);
      CHECK(worst <= 1);
    }
  }
}

TEST_CASE("a lane's exp, log, log1p, sin, cos and tanh never depend on the other lanes") {
  // Our AVX2 and AVX-512 kernels give lanes outside their range SLEEF's:
  // an element's bits are the same alone, among arguments in range, among
  // arguments outside it, and at any offset in the array.
  // Past each kernel's range (log's: zero, negatives, subnormals), exp's
  // two-step ranges (708 to 709.8, -746 to -708), and tanh's series and
  // quotient (0.1, -0.125) and -0 beside other lanes.
  const std::vector<double> outside = {NAN,    INFINITY, -INFINITY, 800,   -800,
                                       709.9,  0x1p21,   -1e300,    709.5, -720.5,
                                       -745.5, 0.1,      -0.125,    -0.0,  25};
  std::mt19937_64 rng(5);
  std::vector<double> x(301);
  for (auto& v : x) v = std::uniform_real_distribution<double>(-700, 700)(rng);
  for (std::size_t i = 0; i < x.size(); i += 13) x[i] = outside[(i / 13) % outside.size()];
  for (const auto kernel :
       {Kernel<double>{backend::vmath::exp}, Kernel<double>{backend::vmath::sin},
        Kernel<double>{backend::vmath::cos}, Kernel<double>{backend::vmath::tanh},
        Kernel<double>{backend::vmath::log}, Kernel<double>{backend::vmath::log1p}}) {
    for (const auto level :
         {backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512}) {
      const LevelScope scope(level);
      if (!scope.ok()) continue;
      std::vector<double> all(x.size());
      kernel(x.data(), all.data(), static_cast<std::int64_t>(x.size()));
      for (const std::size_t offset : {std::size_t{1}, std::size_t{5}}) {
        std::vector<double> shifted(x.size() - offset);
        kernel(x.data() + offset, shifted.data(), static_cast<std::int64_t>(shifted.size()));
        for (std::size_t i = 0; i < shifted.size(); ++i) {
          INFO("f(" << x[i + offset] << ") at offset " << offset);
          CHECK(same(shifted[i], all[i + offset]));
        }
      }
      for (std::size_t i = 0; i < x.size(); i += 7) {
        double alone = 0;
        kernel(&x[i], &alone, 1);
        INFO("f(" << x[i] << ") alone");
        CHECK(same(alone, all[i]));
      }
    }
  }
}

TEMPLATE_TEST_CASE("log1p of an element does not depend on a huge neighbour", "", float, double) {
  // Where SLEEF's log1p runs (f32; f64 at SSE2), arguments above about
  // 1e307 (f32: 3e35) and +inf take the C library's log1p (SLEEF's
  // overflows there): element by element, so the other elements of their
  // block keep the vector routine's bits, which differ from the C
  // library's in the last place for some arguments. Our own f64 kernel
  // takes them in its lanes.
  using T = TestType;
  std::mt19937_64 rng(17);
  std::vector<T> x(4000);
  for (auto& v : x) v = static_cast<T>(std::uniform_real_distribution<double>(-0.9, 10)(rng));
  std::vector<T> with_huge = x;
  for (std::size_t i = 0; i < x.size(); i += 97)
    with_huge[i] = i % 2 ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max() / 4;
  for (const auto level :
       {backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512}) {
    const LevelScope scope(level);
    if (!scope.ok()) continue;
    std::vector<T> plain(x.size()), mixed(x.size());
    backend::vmath::log1p(x.data(), plain.data(), static_cast<std::int64_t>(x.size()));
    backend::vmath::log1p(with_huge.data(), mixed.data(), static_cast<std::int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("level " << backend::vector_level_name(level));
      if (i % 97 == 0) {
        INFO("log1p(" << with_huge[i] << ")");
        CHECK(same(mixed[i], std::log1p(with_huge[i])));
        continue;
      }
      INFO("log1p(" << x[i] << ") beside a huge argument");
      CHECK(same(mixed[i], plain[i]));
    }
  }
}

TEST_CASE("f64 exp, log, log1p, sin, cos and tanh give the same bits at AVX2 and AVX-512") {
  // Our own kernels take the same steps at both levels (vector_math_own.hpp),
  // SLEEF's lanes aside; over every class of argument of the tests above
  // (log's and log1p's where they are ours: their other lanes are SLEEF's).
  const LevelScope avx512(backend::VectorLevel::Avx512);
  if (!avx512.ok()) return;  // this CPU lacks AVX-512
  std::mt19937_64 rng(3);
  std::vector<double> x;
  for (int i = 0; i < 6000; ++i) {
    x.push_back(bits_below(rng, 708));
    x.push_back(bits_below(rng, 0x1p20));
    x.push_back(std::uniform_real_distribution<double>(-746, 709.8)(rng));
    x.push_back(near_half_pi(rng, 600000));
    x.push_back(std::uniform_real_distribution<double>(-0.25, 0.25)(rng));
    x.push_back(std::exp(std::uniform_real_distribution<double>(-700, 700)(rng)));
    x.push_back(std::uniform_real_distribution<double>(-1, 1)(rng));
  }
  const auto positive_normal = [](double v) { return v >= DBL_MIN && v <= DBL_MAX; };
  for (const auto kernel :
       {Kernel<double>{backend::vmath::exp}, Kernel<double>{backend::vmath::sin},
        Kernel<double>{backend::vmath::cos}, Kernel<double>{backend::vmath::tanh},
        Kernel<double>{backend::vmath::log}, Kernel<double>{backend::vmath::log1p}}) {
    // log's lanes off the positive normals are SLEEF's, log1p's where 1 + x is.
    const bool is_log = kernel == Kernel<double>{backend::vmath::log};
    const bool is_log1p = kernel == Kernel<double>{backend::vmath::log1p};
    std::vector<double> wide(x.size()), narrow(x.size());
    kernel(x.data(), wide.data(), static_cast<std::int64_t>(x.size()));
    {
      const LevelScope avx2(backend::VectorLevel::Avx2);
      kernel(x.data(), narrow.data(), static_cast<std::int64_t>(x.size()));
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (is_log && !positive_normal(x[i])) continue;
      if (is_log1p && !positive_normal(1 + x[i])) continue;
      INFO("f(" << x[i] << ")");
      CHECK(same(wide[i], narrow[i]));
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

TEMPLATE_TEST_CASE("sincos gives the bits of sin and cos at every level", "", float, double) {
  // One reduction for both where our own f64 kernels run; each result must
  // still be sin's and cos's own, so that a fused group pairing them
  // computes what op by op would. Lengths that leave tails; arguments near
  // multiples of pi/2, beyond 2^20 (SLEEF's lanes), +-0, +-inf and NaN.
  using T = TestType;
  std::mt19937_64 rng(29);
  std::vector<T> x = {T(0),
                      T(-0.0),
                      std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity(),
                      std::numeric_limits<T>::quiet_NaN(),
                      T(1e30),
                      T(-3e7),
                      std::numeric_limits<T>::denorm_min()};
  for (int i = 0; i < 3000; ++i) {
    x.push_back(static_cast<T>(near_half_pi(rng, 600000)));
    x.push_back(static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(rng)));
    x.push_back(static_cast<T>(bits_below(rng, 0x1p21)));
  }
  for (const auto level :
       {backend::VectorLevel::Sse2, backend::VectorLevel::Avx2, backend::VectorLevel::Avx512}) {
    const LevelScope scope(level);
    if (!scope.ok()) continue;
    for (const std::size_t n : {x.size(), std::size_t{13}, std::size_t{3}}) {
      std::vector<T> s(n), c(n), s1(n), c1(n);
      backend::vmath::sincos(x.data(), s.data(), c.data(), static_cast<std::int64_t>(n));
      backend::vmath::sin(x.data(), s1.data(), static_cast<std::int64_t>(n));
      backend::vmath::cos(x.data(), c1.data(), static_cast<std::int64_t>(n));
      for (std::size_t i = 0; i < n; ++i) {
        INFO("level " << static_cast<int>(level) << ", n " << n << ": sincos(" << x[i] << ")");
        CHECK(same(s[i], s1[i]));
        CHECK(same(c[i], c1[i]));
      }
    }
  }
}
