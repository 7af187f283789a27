// scan as docs/language.md defines it: sequences with taps, mit-sot with
// initial history, sit-sot, nit-sot, non-sequences, default n-steps,
// :until (stopping early and never), :keep, nested scans and zero steps;
// and the memory plan: no step allocates a buffer after the first.
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace eqsat;
using namespace eqsat::test;
using Catch::Matchers::Approx;

namespace {

const auto kF64 = DType::F64;

// Body of a running sum: (fn (x_t acc) (add acc x_t)).
TermRef sum_body() {
  return ops::Term::fn({ty(kF64), ty(kF64)}, {op(OpKind::Add, {param(1, kF64), param(0, kF64)})});
}

ops::ScanSpec cumsum_spec() {
  ops::ScanSpec s;
  s.sequence_taps = {{0}};
  s.num_sitsot = 1;
  return s;
}

std::vector<double> run1(const ops::Graph& g, std::vector<ops::Array> in, std::size_t out = 0) {
  return values(backend::compile(g).run(std::move(in)).at(out));
}

}  // namespace

TEST_CASE("cumulative sum over a sequence, n-steps from its length") {
  TermRef xs = input("xs", kF64, {ops::kUnknownDim});
  TermRef s = scan(cumsum_spec(), sum_body(), {xs, f64(0)});
  const auto got = run1(graph({xs}, {get(0, s)}), {vec({1, 2, 3, 4})});
  CHECK_THAT(got, Approx(std::vector<double>{1, 3, 6, 10}));
}

TEST_CASE("a recurrence with a non-sequence: h = tanh(W h)") {
  TermRef w = input("w", kF64, {2, 2});
  TermRef h0 = input("h0", kF64, {2});
  ops::ScanSpec spec;
  spec.num_sitsot = 1;
  spec.num_nonsequences = 1;
  spec.has_n_steps = true;
  TermRef body = ops::Term::fn(
      {ty(kF64, {2}), ty(kF64, {2, 2})},
      {op(OpKind::Tanh, {op(OpKind::Dot, {param(1, kF64, {2, 2}), param(0, kF64, {2})})})});
  TermRef s = scan(spec, body, {i64(3), h0, w});
  ops::Array wv(kF64, {2, 2});
  const double wd[] = {0.5, -1.0, 2.0, 0.25};
  std::copy(wd, wd + 4, wv.data<double>());
  const auto got = run1(graph({w, h0}, {get(0, s)}), {wv, vec({1, -2})});
  std::vector<double> want;
  double h[2] = {1, -2};
  for (int t = 0; t < 3; ++t) {
    const double a = std::tanh(wd[0] * h[0] + wd[1] * h[1]);
    const double b = std::tanh(wd[2] * h[0] + wd[3] * h[1]);
    h[0] = a;
    h[1] = b;
    want.push_back(a);
    want.push_back(b);
  }
  CHECK_THAT(got, Approx(want));
}

TEST_CASE("fibonacci: a mit-sot with taps (-2 -1) and initial history") {
  ops::ScanSpec spec;
  spec.mitsot_taps = {{-2, -1}};
  spec.has_n_steps = true;
  TermRef body = ops::Term::fn({ty(DType::I64), ty(DType::I64)},
                               {op(OpKind::Add, {param(0, DType::I64), param(1, DType::I64)})});
  TermRef init = input("init", DType::I64, {2});
  TermRef s = scan(spec, body, {i64(8), init});
  const auto got = run1(graph({init}, {get(0, s)}), {vec({0, 1}, DType::I64)});
  CHECK(got == std::vector<double>{1, 2, 3, 5, 8, 13, 21, 34});
}

TEST_CASE("sequence taps (0 1) read x[t] and x[t+1] - n-steps defaults to len - max tap") {
  ops::ScanSpec spec;
  spec.sequence_taps = {{0, 1}};
  spec.num_nitsot = 1;
  TermRef body =
      ops::Term::fn({ty(kF64), ty(kF64)}, {op(OpKind::Sub, {param(1, kF64), param(0, kF64)})});
  TermRef xs = input("xs", kF64, {5});
  TermRef s = scan(spec, body, {xs});
  CHECK(std::get<ops::TupleType>(s->type()).elements[0] == ty(kF64, {4}));
  CHECK(run1(graph({xs}, {get(0, s)}), {vec({1, 4, 9, 16, 25})}) ==
        std::vector<double>{3, 5, 7, 9});
}

TEST_CASE("nit-sot outputs of vector shape, alongside a sit-sot") {
  ops::ScanSpec spec;
  spec.sequence_taps = {{0}};
  spec.num_sitsot = 1;
  spec.num_nitsot = 1;
  // (fn (x_t acc) (add acc x_t) (stack x_t acc))
  TermRef body = ops::Term::fn(
      {ty(kF64), ty(kF64)},
      {op(OpKind::Add, {param(1, kF64), param(0, kF64)}),
       op(OpKind::Stack, {param(0, kF64), param(1, kF64)}, {{AttrKey::Axis, std::int64_t{0}}})});
  TermRef xs = input("xs", kF64, {3});
  TermRef s = scan(spec, body, {xs, f64(10)});
  const ops::Graph g = graph({xs}, {get(0, s), get(1, s)});
  const auto out = backend::compile(g).run({vec({1, 2, 3})});
  CHECK(values(out[0]) == std::vector<double>{11, 13, 16});
  CHECK(out[1].shape() == ops::Dims{3, 2});
  CHECK(values(out[1]) == std::vector<double>{1, 10, 2, 11, 3, 13});
}

TEST_CASE(":until stops after the first step whose flag is true, and may never stop") {
  ops::ScanSpec spec;
  spec.num_sitsot = 1;
  spec.has_n_steps = true;
  spec.until = true;
  // (fn (x) (mul x 2.0) (gt (mul x 2.0) LIMIT))
  auto body = [&](double limit) {
    TermRef twice = op(OpKind::Mul, {param(0, kF64), f64(2)});
    return ops::Term::fn({ty(kF64)}, {twice, op(OpKind::Gt, {twice, f64(limit)})});
  };
  TermRef x0 = input("x0", kF64);
  TermRef early = scan(spec, body(100), {i64(20), x0});
  CHECK(run1(graph({x0}, {get(0, early)}), {ops::Array::scalar(kF64, 1)}) ==
        std::vector<double>{2, 4, 8, 16, 32, 64, 128});
  // A huge bound is fine: the rows grow with the steps actually run.
  TermRef bounded = scan(spec, body(100), {i64(std::int64_t{1} << 40), x0});
  CHECK(run1(graph({x0}, {get(0, bounded)}), {ops::Array::scalar(kF64, 1)}).size() == 7);
  TermRef long_run = scan(spec, body(1e300), {i64(200), x0});
  const auto doubled = run1(graph({x0}, {get(0, long_run)}), {ops::Array::scalar(kF64, 1)});
  REQUIRE(doubled.size() == 200);
  CHECK(doubled[199] == std::ldexp(1.0, 200));
  TermRef never = scan(spec, body(1e9), {i64(5), x0});
  CHECK(run1(graph({x0}, {get(0, never)}), {ops::Array::scalar(kF64, 1)}) ==
        std::vector<double>{2, 4, 8, 16, 32});
}

TEST_CASE(":keep k stores only the last k steps, in order") {
  TermRef xs = input("xs", kF64, {ops::kUnknownDim});
  for (std::int64_t keep : {1, 3, 5, 7}) {
    INFO("keep " << keep);
    ops::ScanSpec spec = cumsum_spec();
    spec.keep = {keep};
    TermRef s = scan(spec, sum_body(), {xs, f64(0)});
    const auto got = run1(graph({xs}, {get(0, s)}), {vec({1, 2, 3, 4, 5})});
    const std::vector<double> all{1, 3, 6, 10, 15};
    const auto n = std::min<std::int64_t>(keep, 5);
    CHECK(got == std::vector<double>(all.end() - n, all.end()));
  }
}

TEST_CASE("a state kept only at its last step (:keep 1) is the last row of its history") {
  // Array states (not the register path): a mit-sot with taps (-2 -1), a
  // sit-sot its body returns unchanged (the ring's own buffer), and an
  // :until loop stopping early; run for 0, 1 and 6 steps, each against the
  // same loop keeping every step.
  const TermRef init = input("init", kF64, {2, 3});
  const TermRef same = input("same", kF64, {3});
  for (const bool until : {false, true}) {
    for (const std::int64_t steps : {0, 1, 6}) {
      INFO("until " << until << ", steps " << steps);
      auto loop = [&](std::vector<std::int64_t> keep) {
        ops::ScanSpec spec;
        spec.mitsot_taps = {{-2, -1}};
        spec.num_sitsot = 1;
        spec.has_n_steps = true;
        spec.until = until;
        spec.keep = std::move(keep);
        const TermRef sum = op(OpKind::Add, {param(0, kF64, {3}), param(1, kF64, {3})});
        std::vector<TermRef> outs = {sum, param(2, kF64, {3})};
        if (until) outs.push_back(op(OpKind::Gt, {op(OpKind::Sum, {sum}), f64(40)}));
        const TermRef body =
            ops::Term::fn({ty(kF64, {3}), ty(kF64, {3}), ty(kF64, {3})}, std::move(outs));
        return scan(spec, body, {i64(steps), init, same});
      };
      const TermRef kept = loop({1, 1}), all = loop({0, 0});
      ops::Array init_v(kF64, {2, 3}), same_v(kF64, {3});
      for (std::int64_t i = 0; i < 6; ++i) init_v.data<double>()[i] = 0.5 * static_cast<double>(i);
      for (std::int64_t i = 0; i < 3; ++i) same_v.data<double>()[i] = 7.0 - static_cast<double>(i);
      const auto out = backend::compile(graph({init, same}, {get(0, kept), get(1, kept),
                                                             get(0, all), get(1, all)}))
                           .run({init_v, same_v});
      for (int s = 0; s < 2; ++s) {
        const ops::Array& k = out[s];
        const ops::Array& a = out[s + 2];
        const std::int64_t run = a.shape()[0];
        CHECK(run <= steps);
        CHECK(k.shape() == ops::Dims{std::min<std::int64_t>(run, 1), 3});
        if (run == 0) continue;
        const std::vector<double> v = values(a);
        CHECK(values(k) == std::vector<double>(v.end() - 3, v.end()));
      }
    }
  }
}

TEST_CASE(":keep with :until keeps the last steps actually run") {
  ops::ScanSpec spec;
  spec.num_sitsot = 1;
  spec.has_n_steps = true;
  spec.until = true;
  spec.keep = {2};
  TermRef twice = op(OpKind::Mul, {param(0, kF64), f64(2)});
  TermRef body = ops::Term::fn({ty(kF64)}, {twice, op(OpKind::Gt, {twice, f64(20)})});
  TermRef x0 = input("x0", kF64);
  TermRef s = scan(spec, body, {i64(50), x0});
  CHECK(run1(graph({x0}, {get(0, s)}), {ops::Array::scalar(kF64, 1)}) ==
        std::vector<double>{16, 32});
}

TEST_CASE("a nested scan: row-wise cumulative sums, their last values summed") {
  // inner: cumulative sum of one row; outer: over rows, carrying a total.
  TermRef row = param(0, kF64, {3});
  TermRef inner = scan(cumsum_spec(), sum_body(), {row, f64(0)});
  TermRef last = op(OpKind::Index, {get(0, inner), i64(-1)});
  ops::ScanSpec outer_spec;
  outer_spec.sequence_taps = {{0}};
  outer_spec.num_sitsot = 1;
  outer_spec.num_nitsot = 1;
  TermRef outer_body = ops::Term::fn({ty(kF64, {3}), ty(kF64)},
                                     {op(OpKind::Add, {param(1, kF64), last}), get(0, inner)});
  TermRef m = input("m", kF64, {2, 3});
  TermRef s = scan(outer_spec, outer_body, {m, f64(0)});
  ops::Array mv(kF64, {2, 3});
  for (int i = 0; i < 6; ++i) mv.data<double>()[i] = i + 1;
  const auto out = backend::compile(graph({m}, {get(0, s), get(1, s)})).run({mv});
  CHECK(values(out[0]) == std::vector<double>{6, 21});
  CHECK(values(out[1]) == std::vector<double>{1, 3, 6, 4, 9, 15});
}

TEST_CASE("zero steps give empty outputs of the right shape") {
  TermRef xs = input("xs", kF64, {ops::kUnknownDim});
  ops::ScanSpec spec = cumsum_spec();
  spec.num_nitsot = 1;
  TermRef body = ops::Term::fn(
      {ty(kF64), ty(kF64)},
      {op(OpKind::Add, {param(1, kF64), param(0, kF64)}),
       op(OpKind::Zeros, {}, {{AttrKey::Shape, ops::IntList{2}}, {AttrKey::Dtype, kF64}})});
  TermRef s = scan(spec, body, {xs, f64(0)});
  const auto out =
      backend::compile(graph({xs}, {get(0, s), get(1, s)})).run({ops::Array(kF64, {0})});
  CHECK(out[0].shape() == ops::Dims{0});
  CHECK(out[1].shape() == ops::Dims{0, 2});

  ops::ScanSpec counted;
  counted.num_sitsot = 1;
  counted.has_n_steps = true;
  TermRef n = input("n", DType::I64);
  TermRef c =
      scan(counted, ops::Term::fn({ty(kF64, {4})}, {op(OpKind::Exp, {param(0, kF64, {4})})}),
           {n, op(OpKind::Zeros, {}, {{AttrKey::Shape, ops::IntList{4}}, {AttrKey::Dtype, kF64}})});
  const auto empty =
      backend::compile(graph({n}, {get(0, c)})).run({ops::Array::scalar(DType::I64, 0)});
  CHECK(empty[0].shape() == ops::Dims{0, 4});
}

TEST_CASE("no step allocates a buffer after the first: allocations do not grow with n-steps") {
  // h = tanh(h * a + b) on vectors: several intermediates per step.
  ops::ScanSpec spec;
  spec.num_sitsot = 1;
  spec.num_nonsequences = 2;
  spec.has_n_steps = true;
  TermRef h = param(0, kF64, {16});
  TermRef body = ops::Term::fn(
      {ty(kF64, {16}), ty(kF64, {16}), ty(kF64, {16})},
      {op(OpKind::Tanh,
          {op(OpKind::Add, {op(OpKind::Mul, {h, param(1, kF64, {16})}), param(2, kF64, {16})})})});
  TermRef n = input("n", DType::I64);
  TermRef a = input("a", kF64, {16});
  TermRef b = input("b", kF64, {16});
  TermRef s = scan(spec, body, {n, op(OpKind::ZerosLike, {a}), a, b});
  ops::Graph g = graph({n, a, b}, {op(OpKind::Sum, {get(0, s)})});
  auto allocations = [&](std::int64_t steps) {
    backend::Program p = backend::compile(g);
    p.run({ops::Array::scalar(DType::I64, static_cast<double>(steps)),
           ops::Array::filled(kF64, {16}, 0.5), ops::Array::filled(kF64, {16}, 0.1)});
    return p.buffers_allocated();
  };
  CHECK(allocations(10) == allocations(1000));
}

TEST_CASE("a def called twice shares one compiled body") {
  TermRef v = param(0, kF64, {ops::kUnknownDim});
  TermRef softplus =
      ops::Term::fn({ty(kF64, {ops::kUnknownDim})}, {op(OpKind::Log1p, {op(OpKind::Exp, {v})})});
  TermRef x = input("x", kF64, {3});
  TermRef y = input("y", kF64, {2});
  TermRef a = op(OpKind::Call, {softplus, x});
  TermRef b = op(OpKind::Call, {softplus, y});
  backend::Program p = backend::compile(graph({x, y}, {a, b}));
  CHECK(p.num_bodies() == 1);
  const auto out = p.run({vec({0, 1, -1}), vec({2, 3})});
  CHECK_THAT(values(out[0]), Approx(std::vector<double>{std::log1p(1.0), std::log1p(std::exp(1.0)),
                                                        std::log1p(std::exp(-1.0))}));
  CHECK_THAT(values(out[1]),
             Approx(std::vector<double>{std::log1p(std::exp(2.0)), std::log1p(std::exp(3.0))}));
}

TEST_CASE("a def with several outputs is a tuple read with get") {
  TermRef p0 = param(0, kF64);
  TermRef f = ops::Term::fn({ty(kF64)}, {op(OpKind::Neg, {p0}), op(OpKind::Square, {p0})});
  TermRef x = input("x", kF64);
  TermRef c = op(OpKind::Call, {f, x});
  const auto out =
      backend::compile(graph({x}, {get(1, c), get(0, c)})).run({ops::Array::scalar(kF64, 3)});
  CHECK(out[0].element(0) == 9);
  CHECK(out[1].element(0) == -3);
}

TEST_CASE("a scalar body runs on registers with the bits of the array path") {
  // x = tanh(a x + b) with a scalar state (register path) and with a
  // one-element state (the body's program): the same bits, step by step.
  TermRef x0 = input("x0", kF64);
  TermRef a = input("a", kF64);
  TermRef b = input("b", kF64);
  ops::ScanSpec spec;
  spec.num_sitsot = 1;
  spec.num_nonsequences = 2;
  spec.has_n_steps = true;
  auto body = [](ops::Dims state) {
    TermRef x = param(0, kF64, state);
    return ops::Term::fn(
        {ty(kF64, state), ty(kF64), ty(kF64)},
        {op(OpKind::Tanh,
            {op(OpKind::Add, {op(OpKind::Mul, {param(1, kF64), x}), param(2, kF64)})})});
  };
  TermRef scalar = scan(spec, body({}), {i64(1000), x0, a, b});
  TermRef x1 = op(OpKind::Reshape, {x0}, {{AttrKey::Shape, ops::IntList{1}}});
  TermRef vector = scan(spec, body({1}), {i64(1000), x1, a, b});
  const auto out =
      backend::compile(graph({x0, a, b}, {get(0, scalar), get(0, vector)}))
          .run({vec({0.3}).reshaped({}), vec({0.9}).reshaped({}), vec({0.1}).reshaped({})});
  REQUIRE(out[0].size() == 1000);
  REQUIRE(out[1].size() == 1000);
  CHECK(values(out[0]) == values(out[1]));
  double x = 0.3;
  for (int t = 0; t < 1000; ++t) x = std::tanh(0.9 * x + 0.1);
  CHECK(out[0].element(999) == Catch::Detail::Approx(x));
}

TEST_CASE("scalar bodies keep mit-sot taps, sequences and :keep") {
  // fibonacci-like x[t] = x[t-2] + 0.5 x[t-1] + s[t], last 3 kept, in
  // f32, against a hand loop.
  const auto f32 = DType::F32;
  TermRef init = input("init", f32, {2});
  TermRef seq = input("seq", f32, {6});
  ops::ScanSpec spec;
  spec.sequence_taps = {{0}};
  spec.mitsot_taps = {{-2, -1}};
  spec.keep = {3};
  TermRef body = ops::Term::fn(
      {ty(f32), ty(f32), ty(f32)},
      {op(OpKind::Add,
          {op(OpKind::Add,
              {param(1, f32), op(OpKind::Mul, {param(2, f32), ops::Term::scalar(f32, 0.5)})}),
           param(0, f32)})});
  TermRef s = scan(spec, body, {seq, init});
  const auto got = values(backend::compile(graph({init, seq}, {get(0, s)}))
                              .run({vec({1, 2}, f32), vec({0.5, -1, 2, 0.25, 3, -2}, f32)})[0]);
  std::vector<float> x = {1, 2};
  const float sv[] = {0.5f, -1, 2, 0.25f, 3, -2};
  for (int t = 0; t < 6; ++t) x.push_back(x[t] + x[t + 1] * 0.5f + sv[t]);
  CHECK(got == std::vector<double>{x[5], x[6], x[7]});
}
