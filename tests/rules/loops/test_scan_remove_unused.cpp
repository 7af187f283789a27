// scan-remove-unused: a loop keeps only the outputs read, the states they
// depend on (and those the stop flag depends on) and the inputs those read;
// the optimized graphs compute the same values.
#include "tests/rules/loop_testing.hpp"

using namespace eqsat;
using namespace eqsat::testing;

TEST_CASE("an unread state goes and its initial value is no longer read") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3)) (input y0 (f64 3))
    (let s (scan :n-steps 4 :sit-sot (x0 y0) (fn (x y) (add x 1.0) (mul y 0.5))))
    (output (get 0 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop).num_sitsot == 1);
  CHECK(spec_of(loop).num_outputs() == 1);
  CHECK_FALSE(reads_input(out, "y0"));
}

TEST_CASE("states feeding each other stay together, an independent one goes") {
  const ops::Graph g = graph(R"(
    (input a0 (f64 3)) (input b0 (f64 3)) (input c0 (f64 3))
    (let s (scan :n-steps 5 :sit-sot (a0 b0 c0)
      (fn (a b c) (add a (mul b 0.5)) (sub b (mul a 0.25)) (mul c 2.0))))
    (output (get 1 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop).num_sitsot == 2);
  CHECK(spec_of(loop).num_outputs() == 2);
}

TEST_CASE("an unread sequence and an unread nit-sot go") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 3)) (input zs (f64 6 3)) (input h0 (f64 3))
    (let s (scan :sequences (xs zs) :sit-sot (h0) :nit-sot 1
      (fn (x z h) (add h x) (exp h))))
    (output (get 0 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop).sequence_taps.size() == 1);
  CHECK(spec_of(loop).num_nitsot == 0);
  CHECK(num_params(loop) == 2);
}

TEST_CASE("a state whose past no kept output reads becomes a nit-sot") {
  // y's next value reads x only: read alone, y needs x's recurrence, not its own.
  const ops::Graph g = graph(R"(
    (input x0 (f64 3)) (input y0 (f64 3))
    (let s (scan :n-steps 4 :sit-sot (x0 y0) (fn (x y) (mul x 1.5) (exp x))))
    (output (get 1 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop).num_sitsot == 1);
  CHECK(spec_of(loop).num_nitsot == 1);
  CHECK_FALSE(reads_input(out, "y0"));
}

TEST_CASE("the stop flag keeps the state it reads") {
  const ops::Graph g = graph(R"(
    (input x0 f64) (input y0 f64)
    (let s (scan :n-steps 50 :sit-sot (x0 y0) :until true
      (fn (x y) (add x 1.0) (add y 0.5) (gt y 3.0))))
    (output (get 0 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop).num_sitsot == 2);
}

TEST_CASE("an unread state the stop flag does not read goes from an until-loop") {
  const ops::Graph g = graph(R"(
    (input x0 f64) (input y0 f64)
    (let s (scan :n-steps 50 :sit-sot (x0 y0) :until true
      (fn (x y) (add x 1.0) (add y 0.5) (gt x 3.0))))
    (output (get 0 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop).num_sitsot == 1);
}

TEST_CASE("unread mit-sot taps go and the initial history is cut to the deepest one left") {
  // h reads only its tap -1 once g (reading -3) is gone.
  const ops::Graph g = graph(R"(
    (input h0 (f64 3 2)) (input x0 (f64 2))
    (let s (scan :n-steps 6 :mit-sot ((h0 :taps (-3 -1))) :sit-sot (x0)
      (fn (h3 h1 x) (mul h1 0.5) (add x h3))))
    (output (get 0 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  REQUIRE(spec_of(loop).mitsot_taps.size() == 1);
  CHECK(spec_of(loop).mitsot_taps[0] == ops::IntList{-1});
  CHECK(spec_of(loop).num_sitsot == 0);
}

TEST_CASE("without n-steps a dropped sequence keeps the trip count") {
  // Static lengths: a longer sequence goes; a shorter one gives its count
  // to :n-steps. Unknown lengths: the sequence keeps its last tap.
  const ops::Graph longer = graph(R"(
    (input xs (f64 4 2)) (input zs (f64 7 2)) (input h0 (f64 2))
    (output (get 0 (scan :sequences (xs zs) :sit-sot (h0) (fn (x z h) (add h x))))))");
  const auto a = scans_in(optimize_and_compare(longer));
  REQUIRE(a.size() == 1);
  CHECK(spec_of(a[0]).sequence_taps.size() == 1);
  CHECK_FALSE(spec_of(a[0]).has_n_steps);
  CHECK(proves(R"(
    (input xs (f64 7 2)) (input zs (f64 4 2)) (input h0 (f64 2))
    (output (get 0 (scan :sequences (xs zs) :sit-sot (h0) (fn (x z h) (add h x)))))
    (output (get 0 (scan :n-steps 4 :sequences (xs) :sit-sot (h0) (fn (x h) (add h x))))))",
               {"scan-remove-unused"}));
  optimize_and_compare(graph(R"(
    (input xs (f64 7 2)) (input zs (f64 4 2)) (input h0 (f64 2))
    (output (get 0 (scan :sequences (xs zs) :sit-sot (h0) (fn (x z h) (add h x))))))"));
  const ops::Graph unknown = graph(R"(
    (input xs (f64 ? 2)) (input zs (f64 ? 2)) (input h0 (f64 2))
    (output (get 0 (scan :sequences (xs (zs :taps (0 2))) :sit-sot (h0)
      (fn (x z0 z2 h) (tanh (add (mul h x) (mul h z0))))))))");
  const auto b = scans_in(optimize_and_compare(unknown));
  REQUIRE(b.size() == 1);
  CHECK(spec_of(b[0]).sequence_taps.size() == 2);
  CHECK(spec_of(b[0]).sequence_taps[1] == ops::IntList{0, 2});
}

TEST_CASE("with unknown lengths an unread sequence goes and the steps are counted at run time") {
  // PyTensor's TestScanInputAndOutputCleanup::test_seqs with unknown
  // shapes: the unread sequence is the shorter one (3 rows of 5 here).
  const ops::Graph out = optimize_and_compare(graph(R"(
    (input xs (f64 ? 2)) (input h0 (f64 2))
    (output (get 0 (scan :sequences (xs (slice xs :axis 0 :stop -2) (xs :taps (0 1))) :sit-sot (h0)
      (fn (x z y0 y1 h) (tanh (mul h (exp x))))))))"));
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop).sequence_taps.size() == 1);
  // The count is :n-steps, or the length of the one sequence left (the
  // body's exp pushed out, on as many rows as the loop runs steps).
  CHECK(contains(loop->operand(1), ops::OpKind::Minimum));
}

TEST_CASE("every output read with nothing unused keeps the loop as it is") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 3)) (input h0 (f64 3))
    (let s (scan :sequences (xs) :sit-sot (h0) :nit-sot 1 (fn (x h) (add h x) (mul h x))))
    (output (get 0 s)) (output (get 1 s)))");
  const ops::Graph out = optimize_and_compare(g);
  const ops::TermRef loop = only_loop(out);
  CHECK(spec_of(loop) == spec_of(scans_in(g)[0]));
}

TEST_CASE("loops nested in loops and in def bodies lose their unread states") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3)) (input y0 (f64 3))
    (def f (fn ((a (f64 3)) (b (f64 3)))
      (get 0 (scan :n-steps 3 :sit-sot (a b) (fn (x y) (add x 1.0) (mul y 0.5))))))
    (output (get 0 (scan :n-steps 2 :sit-sot (x0 y0)
      (fn (u v) (index (get 0 (scan :n-steps 3 :sit-sot (u v) (fn (x y) (mul x 0.5) (add y x)))) -1)
                (sin v)))))
    (output (call f x0 y0)))");
  const ops::Graph out = optimize_and_compare(g);
  for (ops::TermRef s : scans_in(out)) CHECK(spec_of(s).num_sitsot == 1);
}

TEST_CASE("the reverse loop of a gradient is pruned like any other") {
  // The gradient through a loop with an unread state equals the gradient
  // through the loop written without it, and neither loop reads y0.
  const auto grad_of = [](const std::string& loop) {
    return optimize_and_compare(graph(R"(
      (input w (f64 3)) (input x0 (f64 3)) (input y0 (f64 3))
      (let s )" + loop + R"()
      (output (grad (sum (get 0 s)) w)))"),
                                nullptr, false);
  };
  const ops::Graph with_y = grad_of(
      "(scan :n-steps 4 :sit-sot (x0 y0) :non-sequences (w) (fn (x y v) (mul x v) (add y 1.0)))");
  const ops::Graph without_y =
      grad_of("(scan :n-steps 4 :sit-sot (x0) :non-sequences (w) (fn (x v) (mul x v)))");
  CHECK_FALSE(reads_input(with_y, "y0"));
  const auto in = inputs_for(with_y);
  const auto a = backend::compile(with_y).run(in);
  const auto b = backend::compile(without_y).run(in);
  for (std::int64_t i = 0; i < a[0].size(); ++i) CHECK(a[0].element(i) == Approx(b[0].element(i)));
  CHECK(scans_in(with_y).size() == scans_in(without_y).size());
  for (ops::TermRef s : scans_in(with_y)) CHECK(spec_of(s).num_sitsot <= 2);
}

TEST_CASE("with n-steps an unread sequence that may be too short keeps its check") {
  // :n-steps 10 over a sequence of unknown length: the loop fails when it
  // is shorter, so the pruned loop keeps reading it (issue 25).
  const char* text = R"(
    (input xs (f64 ?)) (input z f64)
    (let s (scan :n-steps 10 :sequences (xs) :sit-sot (z z) (fn (x h g) (add h 1.0) (add g x))))
    (output (get 0 s)))";
  const ops::Graph out = optimized(graph(text));
  INFO(ops::print_graph(out));
  const ops::Array z = ops::Array::scalar(ops::DType::F64, 0.5);
  CHECK_THROWS_WITH(backend::compile(out).run({ops::Array::filled(ops::DType::F64, {6}, 1.0), z}),
                    Catch::Contains("allows only 6 steps"));
  CHECK(backend::compile(out).run({ops::Array::filled(ops::DType::F64, {12}, 1.0), z})[0].element(
            9) == 10.5);
  // A sequence statically long enough goes.
  const ops::Graph long_enough = optimized(graph(R"(
    (input xs (f64 12)) (input z f64)
    (let s (scan :n-steps 10 :sequences (xs) :sit-sot (z z) (fn (x h g) (add h 1.0) (add g x))))
    (output (get 0 s)))"));
  CHECK_FALSE(reads_input(long_enough, "xs"));
}

TEST_CASE("an unread mit-sot whose history may be too short keeps its check") {
  // The loop fails when h0 has fewer than 3 rows (issue 25).
  const ops::Graph out = optimized(graph(R"(
    (input h0 (f64 ?)) (input z f64)
    (let s (scan :n-steps 3 :mit-sot ((h0 :taps (-3 -1))) :sit-sot (z)
      (fn (a b c) (add a b) (add c 1.0))))
    (output (get 1 s)))"));
  INFO(ops::print_graph(out));
  const ops::Array z = ops::Array::scalar(ops::DType::F64, 0.5);
  CHECK_THROWS_WITH(backend::compile(out).run({ops::Array::filled(ops::DType::F64, {1}, 1.0), z}),
                    Catch::Contains("needs 3 initial steps"));
  CHECK(backend::compile(out).run({ops::Array::filled(ops::DType::F64, {3}, 1.0), z})[0].element(
            2) == 3.5);
}
