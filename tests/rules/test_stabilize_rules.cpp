// The stabilize rule set (rules/stabilize.rules) on the default schedule:
// each unstable spelling becomes its stable form ("start ⇒ goal"), and on
// the values that break the naive form (±1000, ±800, 1e-12, subnormals) the
// optimized graph is finite and equals a stable reference computed here.
// Cases follow PyTensor's rewrite tests (tests/tensor/rewriting/test_math.py
// and test_special.py): log1p, expm1, softplus, log-sigmoid, log1mexp,
// logsumexp, log_softmax, hypot, and the commuted spellings of each.
#include "tests/support/check_optimizes.hpp"

#include <cmath>
#include <functional>
#include <limits>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::testing;

namespace {

// Optimizing `start` gives `goal`'s outputs, up to the operand order of
// commutative ops (the extractor may pick either order of an equally
// cheap `add`).
void check_stabilizes(const std::string& start, const std::string& goal) {
  check_optimizes(start, goal, Match::UpToCommuting);
}

ops::Array vector_of(std::vector<double> v) {
  ops::Array a(ops::DType::F64, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}

ops::Array array_of(ops::Dims dims, std::vector<double> v) {
  ops::Array a(ops::DType::F64, std::move(dims));
  REQUIRE(static_cast<std::size_t>(a.size()) == v.size());
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}

// Every element is finite and within 1e-12 (relative) of the reference.
void check_close(const ops::Array& got, const std::vector<double>& want) {
  REQUIRE(static_cast<std::size_t>(got.size()) == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = got.element(static_cast<std::int64_t>(i));
    INFO("element " << i << ": got " << g << ", want " << want[i]);
    CHECK(std::isfinite(g));
    CHECK(std::abs(g - want[i]) <= 1e-12 * std::max(1.0, std::abs(want[i])));
  }
}

double softplus(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double logaddexp(double a, double b) {
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

const double kSubnormal = std::numeric_limits<double>::denorm_min() * 7;
const std::vector<double> kHard = {1000, -1000, 800, -800, 1e-12, -1e-12, kSubnormal, 0.5};

std::vector<double> map(const std::vector<double>& xs, const std::function<double(double)>& f) {
  std::vector<double> out;
  for (double x : xs) out.push_back(f(x));
  return out;
}

}  // namespace

TEST_CASE("stabilize: softplus and log1p spellings in either operand order") {
  const std::string in = "(input x (f64 ?))";
  for (const char* e : {"(log (add 1 (exp x)))", "(log (add (exp x) 1))", "(log1p (exp x))"}) {
    check_stabilizes(in + "(output " + e + ")", in + "(output (softplus x))");
    check_close(run_optimized(in + "(output " + e + ")", {vector_of(kHard)}), map(kHard, softplus));
  }
  for (const char* e : {"(log (add 1 x))", "(log (add x 1))"}) {
    check_stabilizes(in + "(output " + e + ")", in + "(output (log1p x))");
    const std::vector<double> small = {1e-12, -1e-12, kSubnormal, 1e-300, 0.25, 800};
    check_close(run_optimized(in + "(output " + e + ")", {vector_of(small)}),
                map(small, [](double x) { return std::log1p(x); }));
  }
}

TEST_CASE("stabilize: expm1 spellings") {
  const std::string in = "(input x (f64 ?))";
  const std::vector<double> small = {1e-12, -1e-12, kSubnormal, -800, 1e-300, 0.25};
  for (const char* e :
       {"(sub (exp x) 1)", "(add (exp x) -1)", "(add -1 (exp x))", "(neg (sub 1 (exp x)))"}) {
    check_stabilizes(in + "(output " + e + ")", in + "(output (expm1 x))");
    check_close(run_optimized(in + "(output " + e + ")", {vector_of(small)}),
                map(small, [](double x) { return std::expm1(x); }));
  }
}

TEST_CASE("stabilize: log1p and expm1 through a broadcast of ones") {
  // ones_like(y) broadcasts x: the result is log1p x broadcast, and the
  // ones are a scalar, never a dense constant.
  const std::string in = "(input y (f64 2 4)) (input x (f64 4))";
  const std::string start = in + "(output (log (add (ones_like y) x)))";
  check_stabilizes(start, in + "(output (broadcast_to (log1p x) :shape (2 4)))");
  const std::vector<double> xs = {1e-12, -1e-12, kSubnormal, 0.5};
  std::vector<double> want;
  for (int r = 0; r < 2; ++r)
    for (double x : xs) want.push_back(std::log1p(x));
  check_close(run_optimized(start, {array_of({2, 4}, std::vector<double>(8, 7.0)), vector_of(xs)}),
              want);
  const std::string printed = ops::print_graph(optimize(graph(start), shipped_rules()));
  CHECK(printed.find("const") == std::string::npos);
  // exp(x) − ones(2, 4)
  check_stabilizes(in + "(output (sub (exp x) (ones_like y)))",
                   in + "(output (broadcast_to (expm1 x) :shape (2 4)))");
}

TEST_CASE("stabilize: log-sigmoid, log(1 − σ) and σ in commuted forms") {
  const std::string in = "(input x (f64 8))";
  check_stabilizes(in + "(output (log (sigmoid x)))", in + "(output (neg (softplus (neg x))))");
  check_close(run_optimized(in + "(output (log (sigmoid x)))", {vector_of(kHard)}),
              map(kHard, [](double x) { return -softplus(-x); }));
  check_stabilizes(in + "(output (log (sub 1 (sigmoid x))))", in + "(output (neg (softplus x)))");
  check_close(run_optimized(in + "(output (log (sub 1 (sigmoid x))))", {vector_of(kHard)}),
              map(kHard, [](double x) { return -softplus(x); }));
  // the expanded log-sigmoid: log(1 / (1 + e⁻ˣ)), with the sum commuted
  check_close(
      run_optimized(in + "(output (log (div 1 (add (exp (neg x)) 1))))", {vector_of(kHard)}),
      map(kHard, [](double x) { return -softplus(-x); }));
  for (const char* e : {"(div 1 (add (exp (neg x)) 1))", "(reciprocal (add (exp (neg x)) 1))"})
    check_stabilizes(in + "(output " + e + ")", in + "(output (sigmoid x))");
  // eˣ/(1 + eˣ) is ∞/∞ = NaN at x = +∞ as written, and stays NaN there.
  check_stabilizes(in + "(output (div (exp x) (add (exp x) 1)))",
                   in + "(output (where (eq x (const f64 inf)) (const f64 nan) (sigmoid x)))");
  const double inf = std::numeric_limits<double>::infinity();
  const ops::Array corners = vector_of({inf, -inf, 800, -800, 0, -0.0, 1, -1});
  const ops::Array got = run_optimized(in + "(output (div (exp x) (add (exp x) 1)))", {corners});
  CHECK(std::isnan(got.element(0)));
  CHECK(got.element(1) == 0);
  CHECK(got.element(2) == 1);  // ∞/∞ from an overflow: the exact value
  CHECK(got.element(4) == 0.5);
  check_stabilizes(in + "(output (div 1 (add (exp x) 1)))", in + "(output (sigmoid (neg x)))");
}

TEST_CASE("stabilize: log-add-exp with broadcasting") {
  const std::string in = "(input a (f64 2 4)) (input b (f64 4))";
  const std::string start = in + "(output (log (add (exp a) (exp b))))";
  check_stabilizes(start, in + "(output (logaddexp a b))");
  const std::vector<double> as = {1000, -1000, 800, -800, 1e-12, kSubnormal, 0.5, 1000};
  const std::vector<double> bs = {999, -1000, -800, 800};
  std::vector<double> want;
  for (std::size_t i = 0; i < as.size(); ++i) want.push_back(logaddexp(as[i], bs[i % 4]));
  check_close(run_optimized(start, {array_of({2, 4}, as), vector_of(bs)}), want);
  // commuted: log(eᵇ + eᵃ)
  check_stabilizes(in + "(output (log (add (exp b) (exp a))))", in + "(output (logaddexp b a))");
}

TEST_CASE("stabilize: hypot-squares with broadcasting") {
  const std::string in = "(input a (f64 2 3)) (input b (f64 3))";
  // x·x is canonicalized to square(x) first
  const std::string start = in + "(output (sqrt (add (square a) (mul b b))))";
  check_stabilizes(
      start, in + "(output (where (logical_or (ne a a) (ne b b)) (const f64 nan) (hypot a b)))");
  // the squares overflow (1e200) or underflow (1e-200) in the naive form
  const std::vector<double> as = {1e200, -1e200, 1e-200, 3, 0, -1e300};
  const std::vector<double> bs = {1e200, 1e-200, -4};
  std::vector<double> want;
  for (std::size_t i = 0; i < as.size(); ++i) want.push_back(std::hypot(as[i], bs[i % 3]));
  check_close(run_optimized(start, {array_of({2, 3}, as), vector_of(bs)}), want);
  check_stabilizes(
      in + "(output (sqrt (add (square b) (square a))))",
      in + "(output (where (logical_or (ne b b) (ne a a)) (const f64 nan) (hypot b a)))");
  // NaN where an operand is NaN, as written: hypot(∞, NaN) alone is ∞.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const ops::Array got = run_optimized(
      start, {array_of({2, 3}, {inf, nan, inf, -inf, 1, 0}), vector_of({nan, inf, 2})});
  CHECK(std::isnan(got.element(0)));
  CHECK(std::isnan(got.element(1)));
  CHECK(got.element(2) == inf);
  CHECK(std::isnan(got.element(3)));
  CHECK(got.element(4) == inf);
  CHECK(got.element(5) == 2);
}

TEST_CASE("stabilize: log-diff-exp and the log1mexp spellings") {
  const std::string in2 = "(input a (f64 4)) (input b (f64 4))";
  const std::string start = in2 + "(output (log (sub (exp a) (exp b))))";
  check_stabilizes(start,
                   in2 + "(output (where (eq b (const f64 -inf)) a (add a (log1mexp (sub b a)))))");
  // Issue 25 point 4: at a = b = −∞ the written form is log 0 = −∞.
  const double inf = std::numeric_limits<double>::infinity();
  const ops::Array corner =
      run_optimized(start, {vector_of({-inf, inf, 2, -inf}), vector_of({-inf, -inf, -inf, 1})});
  CHECK(corner.element(0) == -inf);
  CHECK(corner.element(1) == inf);
  CHECK(corner.element(2) == Approx(2));
  CHECK(std::isnan(corner.element(3)));
  const std::vector<double> as = {1000, -800, 800, 1e-12};
  const std::vector<double> bs = {999, -801, 799.999, -1e-12};
  std::vector<double> want;
  for (std::size_t i = 0; i < as.size(); ++i)
    want.push_back(as[i] + std::log(-std::expm1(bs[i] - as[i])));
  check_close(run_optimized(start, {vector_of(as), vector_of(bs)}), want);

  // around the switch point log(1/2) too, and −2⁻⁵⁵ (PyTensor's
  // test_log1mexp_stabilization)
  const std::string in = "(input x (f64 9))";
  const std::vector<double> neg = {-1000, -800, -1e-12, -kSubnormal,          -0.5,
                                   -3,    -0.8, -0.6,   -std::ldexp(1.0, -55)};
  for (const char* e :
       {"(log (sub 1 (exp x)))", "(log1p (neg (exp x)))", "(log (neg (expm1 x)))"}) {
    check_stabilizes(in + "(output " + e + ")", in + "(output (log1mexp x))");
    check_close(run_optimized(in + "(output " + e + ")", {vector_of(neg)}), map(neg, [](double x) {
                  return x > -0.693 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x));
                }));
  }
}

TEST_CASE("stabilize: softmax spelled out over axis -1, at the top level and in bodies") {
  const std::string in = "(input x (f64 2 3))";
  const std::string sm = "(div (exp x) (sum (exp x) :axis (-1) :keepdims true))";
  check_stabilizes(in + "(output " + sm + ")", in + "(output (softmax x :axis 1))");
  const ops::Array x = array_of({2, 3}, {1000, 1000, 999, -800, -800, -1000});
  auto softmax_ref = [&] {
    std::vector<double> want;
    for (int r = 0; r < 2; ++r) {
      const double* row = x.data<double>() + 3 * r;
      const double m = std::max({row[0], row[1], row[2]});
      double s = 0;
      for (int i = 0; i < 3; ++i) s += std::exp(row[i] - m);
      for (int i = 0; i < 3; ++i) want.push_back(std::exp(row[i] - m) / s);
    }
    return want;
  };
  check_close(run_optimized(in + "(output " + sm + ")", {x}), softmax_ref());
  // inside a def body
  const std::string def =
      "(def f (fn ((v (f64 2 3))) (div (exp v) (sum (exp v) :axis (-1) :keepdims true))))";
  check_close(run_optimized(in + def + "(output (call f x))", {x}), softmax_ref());
  // inside a scan body: each step applies the softmax to its row
  const std::string scan =
      "(input s (f64 2 2 3))"
      "(output (get 0 (scan :sequences (s) :nit-sot 1"
      "  (fn (r) (div (exp r) (sum (exp r) :axis (-1) :keepdims true))))))";
  const std::vector<double> row(x.data<double>(), x.data<double>() + 6), ref = softmax_ref();
  std::vector<double> data = row, both = ref;
  data.insert(data.end(), row.begin(), row.end());
  both.insert(both.end(), ref.begin(), ref.end());
  check_close(run_optimized(scan, {array_of({2, 2, 3}, data)}), both);
}

TEST_CASE("stabilize: logsumexp over any axes and log_softmax of an indexed row") {
  const std::string in = "(input x (f64 2 3 2))";
  check_stabilizes(in + "(output (log (sum (exp x) :axis (0 2))))",
                   in + "(output (logsumexp x :axis (0 2)))");
  std::vector<double> v(12, 1000.0);
  v[1] = -800;
  const ops::Array x = array_of({2, 3, 2}, v);
  std::vector<double> want;
  for (int j = 0; j < 3; ++j) {
    double s = 0;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) s += std::exp(v[i * 6 + j * 2 + k] - 1000);
    want.push_back(1000 + std::log(s));
  }
  check_close(run_optimized(in + "(output (log (sum (exp x) :axis (0 2))))", {x}), want);

  const std::string in2 = "(input x (f64 2 3))";
  // The row alone is computed (index-lift): log_softmax of x[0].
  check_stabilizes(in2 + "(output (log (index (softmax x :axis 1) 0)))",
                   in2 + "(output (log_softmax (index x 0) :axis 0))");
  const ops::Array y = array_of({2, 3}, {1000, -1000, 999, 0, 0, 0});
  const double lse = 1000 + std::log(1 + std::exp(-2000.0) + std::exp(-1.0));
  check_close(run_optimized(in2 + "(output (log (index (softmax x :axis 1) 0)))", {y}),
              {1000 - lse, -1000 - lse, 999 - lse});
}

// Users write the stable forms by hand: the max they subtract is the one
// the fused op subtracts itself, so the extra max and pass go.
TEST_CASE("stabilize: a max subtracted by hand goes into softmax log_softmax and logsumexp") {
  const std::string in = "(input x (f64 2 3)) (let m (max x :axis (1) :keepdims true))";
  const std::string e = "(exp (sub x m))", s = "(sum " + e + " :axis (1) :keepdims true)";
  // 0 · max keeps the written NaN of a row whose max is ±∞ or NaN.
  const std::string zero_max = "(mul (max x :axis (1) :keepdims true) 0.0)";
  check_stabilizes(in + "(output (div " + e + " " + s + "))",
                   "(input x (f64 2 3)) (output (add (softmax x :axis 1) " + zero_max + "))");
  check_stabilizes(in + "(output (sub (sub x m) (log " + s + ")))",
                   "(input x (f64 2 3)) (output (add (log_softmax x :axis 1) " + zero_max + "))");
  check_stabilizes(
      in + "(output (add m (log " + s + ")))",
      "(input x (f64 2 3)) (output (add (logsumexp x :axis (1) :keepdims true) " + zero_max + "))");
  check_stabilizes(
      in + "(output (add (log (sum " + e + " :axis (1))) (max x :axis (1))))",
      "(input x (f64 2 3)) (output (add (logsumexp x :axis (1)) (mul (max x :axis (1)) 0.0)))");
  {
    const double inf = std::numeric_limits<double>::infinity();
    const ops::Array rows = array_of({2, 3}, {1, inf, 2, -inf, -inf, -inf});
    for (const std::string& out : {"(div " + e + " " + s + ")", "(add m (log " + s + "))"}) {
      const ops::Array got = run_optimized(in + "(output " + out + ")", {rows});
      for (std::int64_t i = 0; i < got.size(); ++i) CHECK(std::isnan(got.element(i)));
    }
  }
  // Another axis's max is not shift-free: it stays.
  const std::string other = "(input x (f64 2 3)) (let m (max x :axis (0) :keepdims true))";
  const ops::Graph kept = optimized(graph(other + "(output (softmax (sub x m) :axis 1))"));
  CHECK(contains(kept.outputs[0].term, ops::OpKind::Max));
  // Values on rows that overflow a naive form.
  const ops::Array x = array_of({2, 3}, {1000, 1000, 999, -800, -800, -1000});
  std::vector<double> want;
  for (int r = 0; r < 2; ++r) {
    const double* row = x.data<double>() + 3 * r;
    const double mx = std::max({row[0], row[1], row[2]});
    double sum = 0;
    for (int i = 0; i < 3; ++i) sum += std::exp(row[i] - mx);
    want.push_back(mx + std::log(sum));
  }
  check_close(run_optimized(in + "(output (add m (log " + s + ")))", {x}), want);
}

TEST_CASE("stabilize: exp log sqrt and softplus round trips keep only their domain") {
  const std::string in = "(input x (f64 6))";
  const std::string nan = "(const f64 nan)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(exp (log x))", "(where (le 0.0 x) x " + nan + ")"},
      {"(exp (log1p x))", "(where (le -1.0 x) (add x 1.0) " + nan + ")"},
      {"(expm1 (log x))", "(where (le 0.0 x) (sub x 1.0) " + nan + ")"},
      {"(expm1 (log1p x))", "(where (le -1.0 x) x " + nan + ")"},
      {"(square (sqrt x))", "(where (le 0.0 x) x " + nan + ")"},
      {"(log (sqrt x))", "(mul (log x) 0.5)"},
      {"(exp (softplus x))", "(add (exp x) 1.0)"},
      {"(expm1 (softplus x))", "(exp x)"},
  };
  const std::vector<double> v = {-2, -1, 0, 0.5, 4, 1e-300};
  const std::vector<std::function<double(double)>> want = {
      [](double t) { return t >= 0 ? t : NAN; },     [](double t) { return t >= -1 ? 1 + t : NAN; },
      [](double t) { return t >= 0 ? t - 1 : NAN; }, [](double t) { return t >= -1 ? t : NAN; },
      [](double t) { return t >= 0 ? t : NAN; },     [](double t) { return 0.5 * std::log(t); },
      [](double t) { return 1 + std::exp(t); },      [](double t) { return std::exp(t); },
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const auto& [start, goal] = cases[c];
    INFO(start);
    check_stabilizes(in + "(output " + start + ")", in + "(output " + goal + ")");
    const ops::Array got = run_optimized(in + "(output " + start + ")", {vector_of(v)});
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double g = got.element(static_cast<std::int64_t>(i)), w = want[c](v[i]);
      INFO("at " << v[i] << ": got " << g << ", want " << w);
      CHECK(((std::isnan(g) && std::isnan(w)) || g == w || std::abs(g - w) <= 1e-15 * std::abs(w)));
    }
  }
}

TEST_CASE("stabilize: products and quotients of exponentials and powers") {
  const std::string in = "(input x (f64 3)) (input y (f64 3)) (input a f64)";
  check_stabilizes(in + "(output (mul (exp x) (exp y)))", in + "(output (exp (add x y)))");
  check_stabilizes(in + "(output (div (exp x) (exp y)))", in + "(output (exp (sub x y)))");
  check_stabilizes(in + "(output (log (mul (exp x) (exp y))))", in + "(output (add x y))");
  // xᵃ xᵇ = xᵃ⁺ᵇ for x, a, b ≥ 0 only; xᵃ/xᵇ is fast-math's.
  check_stabilizes(in + "(output (mul (pow (abs a) (abs x)) (pow (abs a) (abs y))))",
                   in + "(output (pow (abs a) (add (abs x) (abs y))))");
  check_stabilizes(in + "(output (mul (pow a x) (pow a y)))",
                   in + "(output (mul (pow a x) (pow a y)))");
  check_stabilizes(in + "(output (div (pow a x) (pow a y)))",
                   in + "(output (div (pow a x) (pow a y)))");
  // Issue 25 point 7: (−1)^½ (−1)^½ and (−1)^1.5/(−1)^½ are NaN, as written.
  for (const std::string out : {"(mul (pow a x) (pow a y))", "(div (pow a x) (pow a y))"}) {
    const ops::Array got = run_optimized(in + "(output " + out + ")",
                                         {vector_of({0.5, 1.5, 2}), vector_of({0.5, 0.5, 1}),
                                          ops::Array::scalar(ops::DType::F64, -1)});
    CHECK(std::isnan(got.element(0)));
    CHECK(std::isnan(got.element(1)));
  }
  // e⁸⁰⁰ · e⁻⁸⁰⁰ is ∞ · 0 as written.
  const ops::Array x = vector_of({800, -800, 1}), y = vector_of({-800, 800, 2});
  check_close(run_optimized(in + "(output (mul (exp x) (exp y)))",
                            {x, y, ops::Array::scalar(ops::DType::F64, 2)}),
              {1, 1, std::exp(3.0)});
  check_close(run_optimized(in + "(output (div (exp x) (exp y)))",
                            {x, x, ops::Array::scalar(ops::DType::F64, 2)}),
              {1, 1, 1});
}

TEST_CASE("stabilize: log1mexp softplus and sigmoid compositions") {
  const std::string in = "(input x (f64 6))";
  const std::string nan = "(const f64 nan)";
  check_stabilizes(in + "(output (exp (log1mexp x)))",
                   in + "(output (where (le x 0.0) (neg (expm1 x)) " + nan + "))");
  check_stabilizes(in + "(output (softplus (log x)))",
                   in + "(output (where (le 0.0 x) (log1p x) " + nan + "))");
  check_stabilizes(in + "(output (log1mexp (log x)))",
                   in + "(output (where (le 0.0 x) (log1p (neg x)) " + nan + "))");
  check_stabilizes(in + "(output (log1mexp (log1mexp x)))",
                   in + "(output (where (le x 0.0) x " + nan + "))");
  check_stabilizes(
      in + "(output (mul (sigmoid x) (exp (neg x))))",
      in + "(output (where (eq x (const f64 -inf)) (const f64 nan) (sigmoid (neg x))))");
  check_stabilizes(in + "(output (mul (exp x) (sigmoid (neg x))))",
                   in + "(output (where (eq x (const f64 inf)) (const f64 nan) (sigmoid x)))");
  check_stabilizes(in + "(output (div (sigmoid x) (sub 1.0 (sigmoid x))))",
                   in + "(output (exp x))");
  // σ(x) e⁻ˣ at x = −800 is 0 · ∞ as written.
  check_close(
      run_optimized(in + "(output (mul (sigmoid x) (exp (neg x))))",
                    {vector_of({-800, 800, 0, 1, -1, 30})}),
      {1, 0, 0.5, 1 / (1 + std::exp(1.0)), 1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(30.0))});
}

TEST_CASE("softmax and exp of log_softmax agree on rows of +inf") {
  const std::string in = "(input x (f64 3 2))";
  const ops::Array x = array_of({3, 2}, {INFINITY, INFINITY, INFINITY, 1, -INFINITY, 2});
  const auto a = backend::compile(graph(in + "(output (softmax x :axis 1))")).run({x})[0];
  const auto b = backend::compile(graph(in + "(output (exp (log_softmax x :axis 1)))")).run({x})[0];
  for (std::int64_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ": " << a.element(i) << " vs " << b.element(i));
    CHECK(((std::isnan(a.element(i)) && std::isnan(b.element(i))) || a.element(i) == b.element(i)));
  }
}

TEST_CASE("gradients of logaddexp and log1mexp are finite where the naive ones overflow") {
  // d/da logaddexp(a, b) = σ(a − b); d/dx log1mexp(x) = −1 / expm1(−x)
  const std::string in = "(input a (f64 4)) (input b (f64 4))";
  const std::vector<double> as = {1000, -1000, 0.5, 800}, bs = {999, -1000, -0.5, -800};
  const ops::Array ga =
      run_optimized(in + "(output (grad (sum (logaddexp a b)) a))", {vector_of(as), vector_of(bs)});
  std::vector<double> want;
  for (std::size_t i = 0; i < as.size(); ++i) want.push_back(1 / (1 + std::exp(bs[i] - as[i])));
  check_close(ga, want);
  const std::vector<double> xs = {-1000, -800, -1e-3, -0.8};
  const ops::Array gx =
      run_optimized("(input x (f64 4)) (output (grad (sum (log1mexp x)) x))", {vector_of(xs)});
  check_close(gx, map(xs, [](double x) { return -1 / std::expm1(-x); }));
}
