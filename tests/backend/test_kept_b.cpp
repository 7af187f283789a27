// Products whose b stays the same between calls read it from a copy in
// strips (BStrips, sgemm_rows_avx2.hpp; on an AVX2 CPU, for any number of
// rows): a program's constant weights, copied at its first run and kept,
// within its memory limit (past it, b is read in place with the same
// arithmetic); and a loop's non-sequence (Function::run's
// ParamUse::Invariant), copied at each loop's first step. Each gives the
// values of a plain double product, the same bits run after run, split
// between threads or not, and when the weights change between runs in a
// buffer the program's pool hands out again.
#include "backend/program.hpp"
#include "backend/vector_level.hpp"
#include "ops/graph_parser.hpp"

#include "program_runs.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace eqsat;
using namespace eqsat::test;
using ops::DType;

namespace {

constexpr std::int64_t kSteps = 20, kRows = 16, kHid = 64;

// h' = tanh(x_t + h w), w = w0 * s computed before the loop at every run.
const char* const kLoop = R"(
(input x (f32 20 16 64))
(input h0 (f32 16 64))
(input w0 (f32 64 64))
(input s (f32))
(let w (mul w0 s))
(let l (scan :sequences (x) :sit-sot (h0) :non-sequences (w)
  (fn (x_t h w_) (tanh (add x_t (dot h w_))))))
(output (get 0 l))
)";

// The loop's states in double, step after step.
std::vector<double> want(const ops::Array& x, const ops::Array& h0, const ops::Array& w0, float s) {
  std::vector<double> h(h0.data<float>(), h0.data<float>() + kRows * kHid), all;
  for (std::int64_t t = 0; t < kSteps; ++t) {
    std::vector<double> next(kRows * kHid);
    for (std::int64_t i = 0; i < kRows; ++i)
      for (std::int64_t j = 0; j < kHid; ++j) {
        double sum = x.data<float>()[(t * kRows + i) * kHid + j];
        for (std::int64_t p = 0; p < kHid; ++p)
          sum += h[i * kHid + p] * double(w0.data<float>()[p * kHid + j] * s);
        next[i * kHid + j] = std::tanh(sum);
      }
    h = next;
    all.insert(all.end(), h.begin(), h.end());
  }
  return all;
}

// A constant (f32 rows x cols) of multiples of 1/16 in [-0.5, 0.5]:
// exact in the graph's text; its values in `values`.
std::string constant(std::int64_t rows, std::int64_t cols, std::mt19937_64& rng,
                     std::vector<double>& values) {
  std::uniform_int_distribution<int> u(-8, 8);
  std::string text = fmt::format("(const (f32 {} {}) (", rows, cols);
  for (std::int64_t i = 0; i < rows * cols; ++i) {
    values.push_back(u(rng) / 16.0);
    text += fmt::format("{}{:.4f}", i ? " " : "", values.back());
  }
  return text + "))";
}

bool same_bits(const ops::Array& a, const ops::Array& b) {
  return a.shape() == b.shape() && std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0;
}

// x (m x k) times the constant w (k x n), plus the constant bias and
// through ReLU when `epilogue`.
struct WeightsProduct {
  std::int64_t m, k, n;
  bool epilogue;
  std::vector<double> w, bias;
  std::string text;

  WeightsProduct(std::int64_t m_, std::int64_t k_, std::int64_t n_, bool epilogue_,
                 std::mt19937_64& rng)
      : m(m_), k(k_), n(n_), epilogue(epilogue_) {
    const std::string wt = constant(k, n, rng, w);
    const std::string bt = constant(1, n, rng, bias);
    const std::string product = fmt::format("(dot x {})", wt);
    text = fmt::format("(input x (f32 {} {}))\n(output y {})\n", m, k,
                       epilogue ? fmt::format("(maximum (add {} {}) 0.0)", product, bt) : product);
  }

  // The largest error of `y` against the double product, over the bound
  // of an f32 sum of k terms (k ulps of the sum of their magnitudes).
  double error_over_bound(const ops::Array& x, const ops::Array& y) const {
    double worst = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = epilogue ? bias[j] : 0.0, size = std::abs(s);
        for (std::int64_t p = 0; p < k; ++p) {
          const double term = double(x.data<float>()[i * k + p]) * w[p * n + j];
          s += term;
          size += std::abs(term);
        }
        if (epilogue) s = std::max(s, 0.0);
        const double bound = double(k + 2) * 0x1p-23 * size + 1e-30;
        worst = std::max(worst, std::abs(double(y.data<float>()[i * n + j]) - s) / bound);
      }
    return worst;
  }
};

}  // namespace

TEST_CASE(
    "a product of constant weights gives its values on every run, split or not, in one copy") {
  std::mt19937_64 rng(31);
  struct Shape {
    std::int64_t m, k, n;
  };
  // Rows up to eqsat's own few-row kernel's 32 and past it (there with at
  // least 96 columns: on eqsat's own kernel at the AVX2 level, every
  // shape), columns in strips of 8 and not, k from 7 to 256.
  for (const Shape& s :
       {Shape{5, 7, 9}, Shape{24, 64, 48}, Shape{100, 33, 100}, Shape{64, 256, 104}})
    for (bool epilogue : {false, true}) {
      const WeightsProduct w(s.m, s.k, s.n, epilogue, rng);
      INFO(s.m << " x " << s.k << " x " << s.n << (epilogue ? " with bias and ReLU" : ""));
      backend::Program p = backend::compile(ops::parse_graph(w.text, "weights.eg", "."));
      const ops::Array x = random_array(DType::F32, {s.m, s.k}, rng);
      const ops::Array first = p.run({x})[0];
      CHECK(w.error_over_bound(x, first) <= 1.0);
      // Again: the copy is kept, only the output is new.
      const std::uint64_t bytes = p.bytes_allocated(), output = std::uint64_t(s.m * s.n * 4);
      CHECK(same_bits(p.run({x})[0], first));
      CHECK(p.bytes_allocated() == bytes + output);
      // On one thread (a product on the pool is split between threads):
      // eqsat's own kernel sums each element alike in any block.
      const ops::Array alone = run_on(p, {x}, true)[0];
      if (backend::vector_level() == backend::VectorLevel::Avx2)
        CHECK(same_bits(alone, first));
      else
        CHECK(w.error_over_bound(x, alone) <= 1.0);
      // Memory released, everything is allocated again, the copy too.
      const std::uint64_t before = p.bytes_allocated();
      p.release_memory();
      CHECK(same_bits(p.run({x})[0], first));
      CHECK(p.bytes_allocated() == before + bytes);
    }
}

TEST_CASE(
    "a copy of constant weights past the memory limit is not made - the product runs without") {
  if (backend::vector_level() != backend::VectorLevel::Avx2) {
    WARN("strips of b are made only at the AVX2 vector level");
    CHECK(backend::vector_level() != backend::VectorLevel::Avx2);
    return;
  }
  std::mt19937_64 rng(32);
  struct Shape {
    std::int64_t m, k, n;
  };
  // A few rows and more: without the copy, eqsat's own kernel reads b in
  // place, with the same arithmetic.
  for (const Shape& s : {Shape{24, 64, 48}, Shape{40, 300, 96}}) {
    INFO(s.m << " x " << s.k << " x " << s.n);
    const WeightsProduct w(s.m, s.k, s.n, false, rng);
    const ops::Array x = random_array(DType::F32, {s.m, s.k}, rng);
    backend::Program free = backend::compile(ops::parse_graph(w.text, "weights.eg", "."));
    const ops::Array want = free.run({x})[0];
    const std::uint64_t all = free.bytes_allocated();
    // Strips of 8 columns x k rows, and 16 floats to align them.
    const auto strips = std::uint64_t(((s.n + 7) / 8 * 8 * s.k + 16) * 4);
    backend::Program tight = backend::compile(ops::parse_graph(w.text, "weights.eg", "."));
    tight.set_memory_limit(all - 1);
    const ops::Array got = tight.run({x})[0];
    CHECK(tight.bytes_allocated() == all - strips);
    CHECK(w.error_over_bound(x, got) <= 1.0);
    // The same bits: the memory limit does not choose the kernel.
    CHECK(same_bits(got, want));
  }
}

TEST_CASE("a loop's invariant weights give the loop's values on every run, changed or not") {
  std::mt19937_64 rng(30);
  backend::Program p = backend::compile(ops::parse_graph(kLoop, "loop.eg", "."));
  ops::Array x = random_array(DType::F32, {kSteps, kRows, kHid}, rng);
  ops::Array h0 = random_array(DType::F32, {kRows, kHid}, rng);
  ops::Array w0 = random_array(DType::F32, {kHid, kHid}, rng);
  for (float& v : x.span<float>()) v *= 0.5f;
  std::vector<ops::Array> first;
  for (float s : {0.06f, -0.11f, 0.06f}) {
    INFO("s = " << s);
    ops::Array scale(DType::F32, {});
    scale.data<float>()[0] = s;
    const std::vector<ops::Array> got = p.run({x, h0, w0, scale});
    REQUIRE(got.size() == 1);
    const std::vector<double> expect = want(x, h0, w0, s);
    REQUIRE(got[0].size() == static_cast<std::int64_t>(expect.size()));
    double worst = 0;
    for (std::size_t i = 0; i < expect.size(); ++i)
      worst = std::max(worst, std::abs(double(got[0].data<float>()[i]) - expect[i]));
    CHECK(worst < 1e-4);
    if (first.empty()) {
      first = got;
    } else if (s == 0.06f) {
      CHECK(std::equal(first[0].span<float>().begin(), first[0].span<float>().end(),
                       got[0].span<float>().begin()));
    }
  }
}
