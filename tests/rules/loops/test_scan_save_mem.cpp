// scan-save-mem: loops read only in their first steps run fewer steps,
// outputs read only in their last steps keep fewer (`:keep`), and both
// compute what the original loop computes. Cases after PyTensor's
// save_mem tests (tests/scan/rewriting/test_trace.py).
#include "rules/pipeline/optimize.hpp"
#include "tests/rules/loop_testing.hpp"

#include "backend/cost_model.hpp"
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;
using eqsat::testing::graph;
using eqsat::testing::scans_in;
using eqsat::testing::spec_of;

namespace {

// Random inputs, unknown lengths `rows`, every integer (an index) 3.
std::vector<ops::Array> save_mem_inputs(const ops::Graph& g, std::int64_t rows = 10) {
  return testing::random_inputs(g, 7, rows, 3);
}

// Optimizes `g` with the shipped rules; the optimized graph must compute
// the same values as `g` on `inputs` (or fail where g fails).
ops::Graph check_same(const ops::Graph& g, const std::vector<ops::Array>& inputs,
                      OptimizeReport* report = nullptr) {
  OptimizeReport r;
  const ops::Graph out = optimize(g, load_default_rules(), &r);
  INFO("optimized:\n" << ops::print_graph(out));
  CHECK(r.cost_after <= r.cost_before);
  std::vector<ops::Array> expected;
  try {
    expected = backend::compile(g).run(inputs);
  } catch (const backend::RuntimeError&) {
    CHECK_THROWS_AS(backend::compile(out).run(inputs), backend::RuntimeError);
    return out;
  }
  const auto actual = backend::compile(out).run(inputs);
  REQUIRE(expected.size() == actual.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    REQUIRE(expected[k].shape() == actual[k].shape());
    for (std::int64_t i = 0; i < expected[k].size(); ++i)
      CHECK(actual[k].element(i) == Approx(expected[k].element(i)).margin(1e-12));
  }
  if (report) *report = r;
  return out;
}

std::int64_t n_steps_of(ops::TermRef scan) {
  REQUIRE(spec_of(scan).has_n_steps);
  const ops::Array* n = scan->operand(1)->const_value();
  REQUIRE(n != nullptr);
  return static_cast<std::int64_t>(n->element(0));
}

}  // namespace

TEST_CASE("a 20000-step loop read at its end keeps one step") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 512)) (input a (f64 512))
    (let s (scan :n-steps 20000 :sit-sot (x0) :non-sequences (a)
      (fn (h w) (tanh (add (mul h 0.5) w)))))
    (output (index (get 0 s) -1)))");
  OptimizeReport r;
  const ops::Graph out = check_same(g, save_mem_inputs(g), &r);
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  // One row of 512 stored instead of the 82 MB history.
  CHECK(spec_of(scans[0]).keep == ops::IntList{1});
  CHECK(std::get<ops::TupleType>(scans[0]->type()).elements[0].dims == ops::Dims{1, 512});
  CHECK(r.cost_after < r.cost_before);
  // The cost model still runs the body 20000 times.
  CHECK(backend::CostModel().trip_count(scans[0]) == 20000);
}

TEST_CASE("reads within the first steps run only those steps") {
  // PyTensor's test_reduced_number_of_steps: x1[:2], x2[4], x3[3], x4[-10], x5[-15].
  const ops::Graph g = graph(R"(
    (input u (f64 20))
    (let s (scan :sequences (u) :nit-sot 5
      (fn (x) (add x 1.0) (add x 2.0) (add x 3.0) (add x 5.0) (add x 6.0))))
    (output (slice (get 0 s) :stop 2))
    (output (index (get 1 s) 4))
    (output (index (get 2 s) 3))
    (output (index (get 3 s) -10))
    (output (index (get 4 s) -15)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  for (ops::TermRef s : scans_in(out)) CHECK(n_steps_of(s) <= 11);  // x4[-10] is step 10
}

TEST_CASE("a constant step count is cut to the last step read") {
  // PyTensor's test_reduced_number_of_steps_constant: xs[-3] of 10 steps
  // (a recurrence that is not a plain accumulation, which has a closed form).
  const ops::Graph g = graph(R"(
    (input x0 f64)
    (output (index (get 0 (scan :n-steps 10 :sit-sot (x0) (fn (h) (add (mul h 0.5) 1.0)))) -3)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  CHECK(n_steps_of(scans[0]) == 8);
  CHECK(spec_of(scans[0]).keep == ops::IntList{1});
}

TEST_CASE("an output read at its end keeps every step of the loop") {
  // PyTensor's test_cannot_reduce_constant_number_of_steps: xs[:5], ys[-1].
  const ops::Graph g = graph(R"(
    (input x0 f64)
    (let s (scan :n-steps 10 :sit-sot (x0 x0) (fn (x y) (add x 1.0) (sub (mul y 0.5) 1.0))))
    (output (slice (get 0 s) :stop 5))
    (output (index (get 1 s) -1)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  for (ops::TermRef s : scans_in(out)) {
    CHECK(n_steps_of(s) == 10);
    // ys keeps its last step; xs keeps all it needs.
    if (!spec_of(s).keep.empty()) CHECK(spec_of(s).keep[1] == 1);
  }
}

TEST_CASE("each output keeps the last steps its readers use") {
  // PyTensor's test_store_steps: a mit-sot, a sit-sot and three nit-sots,
  // each reading the states (work on `u` alone would leave the loop).
  const ops::Graph g = graph(R"(
    (input u (f64 20)) (input x10 (f64 2)) (input x20 f64)
    (let s (scan :sequences (u) :mit-sot ((x10 :taps (-2 -1))) :sit-sot (x20) :nit-sot 3
      (fn (ut a b c) (add ut (mul a b)) (add c ut) (tanh (add b c)) (mul a c) (sin (add a c)))))
    (output (index (get 2 s) -7))
    (output (slice (get 3 s) :start -3 :stop -1))
    (output (slice (get 4 s) :start -6))
    (output (index (get 0 s) -1))
    (output (index (get 1 s) -1)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  // The mit-sot keeps one step: its taps live in the executor's own ring.
  CHECK(spec_of(scans[0]).keep == ops::IntList{1, 1, 7, 3, 6});
}

TEST_CASE("an output also read whole is not cut") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3))
    (let s (scan :n-steps 50 :sit-sot (x0) (fn (h) (mul h 0.9))))
    (output (index (get 0 s) -1))
    (output (sum (get 0 s))))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  for (ops::TermRef s : scans_in(out)) {
    CHECK(n_steps_of(s) == 50);
    CHECK(spec_of(s).keep.empty());
  }
}

TEST_CASE("an output read by a run-time index runs only the steps it reaches") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3)) (input i i64)
    (let s (scan :n-steps 50 :sit-sot (x0) (fn (h) (mul h 0.9))))
    (output (index (get 0 s) i)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  CHECK(scans[0]->operand(1)->kind() == ops::OpKind::Minimum);
  // In range from either end, and out of range (the read fails either way).
  for (std::int64_t i : {0, 3, 49, -1, -50, 50, 60, -51, -80})
    check_same(g, {ops::Array::filled(ops::DType::F64, {3}, 0.5),
                   ops::Array::filled(ops::DType::I64, {}, static_cast<double>(i))});
}

TEST_CASE("run-time and constant reads of several outputs share one shorter loop") {
  // PyTensor's test_reduced_number_of_steps with its symbolic readers:
  // x1[:2], x2[4], x3[idx], x5[-10], x6[-jdx] of a 20-step loop.
  const ops::Graph g = graph(R"(
    (input u (f64 20)) (input idx i32) (input jdx i64)
    (let r (scan :sequences (u) :sit-sot (0.0 0.0 0.0 0.0 0.0)
      (fn (x a b c d e) (add (mul 0.5 a) (add x 1.0)) (add (mul 0.5 b) (add x 2.0))
        (add (mul 0.5 c) (add x 3.0)) (add (mul 0.5 d) (add x 5.0)) (add (mul 0.5 e) (add x 6.0)))))
    (output (slice (get 0 r) :stop 2)) (output (index (get 1 r) 4))
    (output (index (get 2 r) idx)) (output (index (get 3 r) -10))
    (output (index (get 4 r) (neg jdx))))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  // The states are independent: the cost model may run one loop per
  // output, each as short as its reader allows. x6[-jdx] (jdx >= 1 reads
  // from the end) needs every step, so its loop keeps the sequence's
  // length, and x3[idx] may share that loop (extraction reuses what another
  // output computes) or run min(idx + 1, 20) steps of its own.
  std::size_t at_run_time = 0, whole = 0;
  for (ops::TermRef s : scans_in(out)) {
    if (!spec_of(s).has_n_steps)
      ++whole;
    else if (s->operand(1)->kind() == ops::OpKind::Minimum)
      ++at_run_time;
    else
      CHECK(n_steps_of(s) <= 11);
  }
  CHECK(whole <= 1);
  CHECK(at_run_time + whole >= 1);
  auto inputs = save_mem_inputs(g);
  for (auto [i, j] : {std::pair{3, 15}, {16, 3}, {-4, 20}, {19, 1}, {20, 1}, {0, 21}, {-21, 1}}) {
    inputs[1] = ops::Array::filled(ops::DType::I32, {}, i);
    inputs[2] = ops::Array::filled(ops::DType::I64, {}, j);
    check_same(g, inputs);
  }
}

TEST_CASE("the other outputs of a kept loop are shared with it") {
  // Output 0 is read whole, output 1 only at its end: one loop serves both.
  const ops::Graph g = graph(R"(
    (input x0 (f64 3))
    (let s (scan :n-steps 300 :sit-sot (x0 x0) (fn (x y) (mul x 0.5) (add y x))))
    (output (get 0 s))
    (output (index (get 1 s) -1)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  CHECK(spec_of(scans[0]).keep == ops::IntList{0, 1});
}

TEST_CASE("until-loops run fewer steps and keep their last ones") {
  const ops::Graph g = graph(R"(
    (input x0 f64)
    (let s (scan :n-steps 1000 :sit-sot (x0) :nit-sot 1 :until true
      (fn (h) (add h 1.0) (mul h 2.0) (ge h 30.0))))
    (output (index (get 0 s) -1))
    (output (index (get 1 s) -1)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  CHECK(spec_of(scans[0]).keep == ops::IntList{1, 1});

  const ops::Graph first = graph(R"(
    (input x0 f64)
    (let s (scan :n-steps 1000 :sit-sot (x0) :until true (fn (h) (add h 1.0) (ge h 30.0))))
    (output (index (get 0 s) 2)))");
  const ops::Graph cut = check_same(first, {ops::Array::filled(ops::DType::F64, {}, 0)});
  CHECK(n_steps_of(scans_in(cut).at(0)) == 3);
  // A flag that stops the loop before step 2 fails the read either way.
  check_same(first, {ops::Array::filled(ops::DType::F64, {}, 40)});
}

TEST_CASE("until-loops over mit-sots and sequences keep one step") {
  // PyTensor's test_while_scan_taps (Fibonacci until 34: 55) and
  // test_while_scan_map (an empty sequence fails the read either way).
  const ops::Graph fib = graph(R"(
    (input x0 (f64 2)) (input n i64)
    (output (index (get 0 (scan :n-steps n :mit-sot ((x0 :taps (-2 -1))) :until true
      (fn (a b) (add a b) (ge b 34.0)))) -1)))");
  const ops::Array ones = ops::Array::filled(ops::DType::F64, {2}, 1);
  const ops::Graph out = check_same(fib, {ones, ops::Array::filled(ops::DType::I64, {}, 1000)});
  CHECK(backend::compile(out).run({ones, ops::Array::filled(ops::DType::I64, {}, 1000)})[0].element(
            0) == 55);
  check_same(fib, {ones, ops::Array::filled(ops::DType::I64, {}, 1)});
  REQUIRE(scans_in(out).size() == 1);
  CHECK(spec_of(scans_in(out)[0]).keep == ops::IntList{1});

  const ops::Graph map = graph(R"(
    (input xs (f64 ?))
    (output (index (get 0 (scan :sequences (xs) :nit-sot 1 :until true
      (fn (x) (add x 1.0) (ge (add x 1.0) 10.0)))) -1)))");
  for (std::int64_t rows : {100, 1, 0}) {
    std::vector<ops::Array> in = save_mem_inputs(map, rows);
    for (std::int64_t i = 0; i < rows; ++i) in[0].data<double>()[i] = static_cast<double>(i);
    check_same(map, in);
  }
}

TEST_CASE("unknown step counts are cut at run time") {
  // Sequences of unknown length are sliced; a variable :n-steps is capped.
  const ops::Graph g = graph(R"(
    (input u (f64 ?))
    (output (slice (get 0 (scan :sequences (u) :nit-sot 1 (fn (x) (exp x)))) :stop 3)))");
  for (std::int64_t rows : {10, 2, 0}) check_same(g, save_mem_inputs(g, rows));
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  CHECK(ops::print_graph(out).find(":stop 3") != std::string::npos);

  const ops::Graph n = graph(R"(
    (input x0 (f64 4)) (input k i64)
    (output (index (get 0 (scan :n-steps k :sit-sot (x0) (fn (h) (add h 1.0)))) 1)))");
  const ops::Graph capped = check_same(n, save_mem_inputs(n));
  CHECK(ops::print_graph(capped).find("minimum") != std::string::npos);
  check_same(
      n, {ops::Array::filled(ops::DType::F64, {4}, 0), ops::Array::filled(ops::DType::I64, {}, 1)});
}

TEST_CASE("loops nested in loops and in defs keep their last step") {
  const ops::Graph nested = graph(R"(
    (input x0 (f64 4)) (input xs (f64 6 4))
    (output (get 0 (scan :sequences (xs) :sit-sot (x0)
      (fn (x h)
        (index (get 0 (scan :n-steps 40 :sit-sot (h) :non-sequences (x)
          (fn (g v) (tanh (add g v))))) -1))))))");
  const ops::Graph out = check_same(nested, save_mem_inputs(nested));
  bool inner_kept = false;
  for (ops::TermRef s : scans_in(out)) inner_kept |= spec_of(s).keep == ops::IntList{1};
  CHECK(inner_kept);

  const ops::Graph in_def = graph(R"(
    (input x0 (f64 4))
    (def last (fn ((v (f64 4)))
      (index (get 0 (scan :n-steps 40 :sit-sot (v) (fn (g) (tanh (add g 1.0))))) -1)))
    (output (call last x0)))");
  const ops::Graph def_out = check_same(in_def, save_mem_inputs(in_def));
  bool def_kept = false;
  for (ops::TermRef s : scans_in(def_out)) def_kept |= spec_of(s).keep == ops::IntList{1};
  CHECK(def_kept);
}

TEST_CASE("the reverse loop of a gradient keeps its last step") {
  const char* text = R"(
    (input x0 (f64 3)) (input w (f64 3))
    (let s (scan :n-steps 30 :sit-sot (x0) :non-sequences (w) (fn (h v) (tanh (mul h v)))))
    (output (sum (index (get 0 s) -1)))
    (output (grad (sum (index (get 0 s) -1)) w)))";
  const ops::Graph g = graph(text);
  const ops::Graph out = optimize(g, load_default_rules());
  INFO(ops::print_graph(out));
  bool reverse_kept = false;
  for (ops::TermRef s : scans_in(out))
    for (auto k : spec_of(s).keep) reverse_kept |= k == 1 && spec_of(s).num_sitsot == 2;
  CHECK(reverse_kept);
  // The gradient against central differences of the loop as written.
  std::vector<ops::Array> in = {ops::Array::filled(ops::DType::F64, {3}, 0.3),
                                ops::Array::filled(ops::DType::F64, {3}, 0.9)};
  in[1].data<double>()[1] = 1.1;
  const auto grad = backend::compile(out).run(in)[1];
  ops::Graph forward = g;
  forward.outputs.pop_back();
  for (std::int64_t k = 0; k < 3; ++k) {
    auto at = [&](double d) {
      std::vector<ops::Array> moved = {in[0], in[1].clone()};  // arrays share buffers
      moved[1].data<double>()[k] += d;
      return backend::compile(forward).run(moved)[0].element(0);
    };
    CHECK(grad.element(k) == Approx((at(1e-6) - at(-1e-6)) / 2e-6).epsilon(1e-5));
  }
}

TEST_CASE("the executor honours :keep for every kind of output") {
  // Each output kept k steps equals the last k rows of the full loop.
  const char* loop = R"(
    (input u (f64 12)) (input h0 (f64 2 3)) (input x0 (f64 3))
    (let s (scan :sequences (u) :mit-sot ((h0 :taps (-2 -1))) :sit-sot (x0) :nit-sot 1 %s
      (fn (ut a b x) (add (mul a 0.5) b) (add x ut) (mul x ut) %s)))
    (output (get 0 s)) (output (get 1 s)) (output (get 2 s)))";
  for (const bool until : {false, true}) {
    char full[1024], kept[1024];
    const char* flag = until ? "(gt ut 5.0)" : "";
    std::snprintf(full, sizeof full, loop, until ? ":until true" : "", flag);
    std::snprintf(kept, sizeof kept, loop, until ? ":keep (1 2 5) :until true" : ":keep (1 2 5)",
                  flag);
    const ops::Graph a = graph(full), b = graph(kept);
    std::vector<ops::Array> in = save_mem_inputs(a);
    for (std::int64_t i = 0; i < 12; ++i) in[0].data<double>()[i] = static_cast<double>(i);
    const auto all = backend::compile(a).run(in);
    const auto last = backend::compile(b).run(in);
    const std::int64_t k[] = {1, 2, 5};
    for (std::size_t o = 0; o < 3; ++o) {
      const std::int64_t steps = all[o].shape()[0], rows = std::min(k[o], steps);
      REQUIRE(last[o].shape()[0] == rows);
      const std::int64_t row = all[o].size() / steps;
      for (std::int64_t i = 0; i < last[o].size(); ++i)
        CHECK(last[o].element(i) == all[o].element((steps - rows) * row + i));
    }
  }
}

TEST_CASE("a state only other states read keeps one step") {
  // PyTensor's test_sit_sot_to_untraced: x feeds y and is never read outside.
  const ops::Graph g = graph(R"(
    (input a (f64 3)) (input b (f64 3))
    (let s (scan :n-steps 10 :sit-sot (a b) (fn (x y) (tanh x) (add (mul y 0.5) x))))
    (output (get 1 s)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  CHECK(spec_of(scans[0]).keep == ops::IntList{1, 0});
}

TEST_CASE("an output read whole and at its last step is one loop") {
  // Extraction must see that the full loop serves the last-step reader too
  // (the `:keep 1` loop is cheaper only for that reader alone).
  const ops::Graph g = graph(R"(
    (input xs (f64 100 3)) (input h0 (f64 3)) (input d f64)
    (let s (scan :sequences (xs) :sit-sot (h0) :non-sequences (d)
      (fn (x h w) (add (mul w h) (mul (sub 1 w) x)))))
    (output (get 0 s))
    (output (index (get 0 s) -1)))");
  const ops::Graph out = check_same(g, save_mem_inputs(g));
  CHECK(scans_in(out).size() == 1);
}

TEST_CASE("an until-loop read at a run-time index reads the steps it ran") {
  // The loop stops before its bound: a negative index counts from the last
  // step run, not from step 10, and a read out of range fails with the
  // written message at the written position.
  const ops::Graph g = graph(R"((input x0 f64)
(input k i64)
(let s (scan :n-steps 10 :sit-sot (x0) :until true
             (fn (h) (let nh (mul h 2.0)) nh (gt nh 20.0))))
(output (index (get 0 s) k)))");
  const ops::Graph out = optimize(g, load_default_rules());
  INFO("optimized:\n" << ops::print_graph(out));
  auto written = backend::compile(g), optimized = backend::compile(out);
  int failed = 0;
  for (double x0 : {0.1, 1.0, 3.0})
    for (std::int64_t k = -12; k <= 11; ++k) {
      INFO("x0 = " << x0 << ", k = " << k);
      const std::vector<ops::Array> in{ops::Array::filled(ops::DType::F64, {}, x0),
                                       ops::Array::filled(ops::DType::I64, {}, k)};
      std::string expected_error;
      double expected = 0;
      try {
        expected = written.run(in)[0].element(0);
      } catch (const backend::RuntimeError& e) {
        expected_error = e.what();
      }
      if (expected_error.empty()) {
        CHECK(optimized.run(in)[0].element(0) == expected);
        continue;
      }
      ++failed;
      CHECK(expected_error.starts_with("t.eg:5:9: error: "));
      CHECK_THROWS_WITH(optimized.run(in), expected_error);
    }
  CHECK(failed > 0);
  CHECK(failed < 72);
}
