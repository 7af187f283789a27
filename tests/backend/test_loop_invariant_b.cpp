// A loop's product whose b is a non-sequence (Function::run's
// ParamUse::Invariant: its f32 recurrent weights, read from a copy in
// strips on an AVX2 CPU, sgemm_rows_avx2.hpp): the values of a plain
// double loop, on each run, when the weights change between runs in a
// buffer the program's pool hands out again (the copy is made anew at
// each loop), and the same bits when a run is repeated.
#include "backend/program.hpp"
#include "ops/graph_parser.hpp"

#include "program_runs.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

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

}  // namespace

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
