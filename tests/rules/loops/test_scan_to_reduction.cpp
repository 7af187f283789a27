// scan-to-reduction: a sit-sot accumulating a function of the sequences
// (elementwise, products, reductions), read at its last step, becomes a
// reduction over the vectorized function; the loop stays where it must.
#include "rules/pipeline/optimize.hpp"
#include "tests/rules/loop_testing.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <functional>
#include <optional>

using namespace eqsat;
using namespace eqsat::rules;
using eqsat::testing::count_ops;

namespace {

// Random inputs, unknown lengths `rows`.
std::vector<ops::Array> reduction_inputs(const ops::Graph& g, std::int64_t rows = 9) {
  return testing::random_inputs(g, 11, rows);
}

// The optimized graph; it computes g's values within `tolerance` (relative).
ops::Graph optimized_same(const std::string& text, double tolerance = 1e-12,
                          std::int64_t unknown = 9) {
  INFO(text);
  const ops::Graph g = eqsat::testing::graph(text);
  OptimizeReport r;
  const ops::Graph out = optimize(g, load_default_rules(), &r);
  INFO("optimized:\n" << ops::print_graph(out));
  CHECK(r.cost_after <= r.cost_before);
  const auto in = reduction_inputs(g, unknown);
  const auto expected = backend::compile(g).run(in);
  const auto actual = backend::compile(out).run(in);
  REQUIRE(expected.size() == actual.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    REQUIRE(expected[k].shape() == actual[k].shape());
    REQUIRE(expected[k].dtype() == actual[k].dtype());
    for (std::int64_t i = 0; i < expected[k].size(); ++i)
      CHECK(actual[k].element(i) == Approx(expected[k].element(i)).epsilon(tolerance));
  }
  return out;
}

std::string accumulate(const char* op, const char* f, const char* init = "h0") {
  return std::string(R"((input xs (f64 40 3)) (input h0 (f64 3)) (input w (f64 3))
    (output (index (get 0 (scan :sequences (xs) :sit-sot ()") +
         init + ") :non-sequences (w) (fn (x h w_) (" + op + " h " + f + ")))) -1))";
}

}  // namespace

TEST_CASE("accumulating loops read at their end become reductions") {
  for (const char* op : {"add", "sub", "mul", "maximum", "minimum", "logaddexp"}) {
    INFO(op);
    // add/sub/mul/logaddexp re-associate: equal within rounding;
    // maximum/minimum exactly.
    const bool exact = op[0] == 'm' && op[1] != 'u';
    const ops::Graph out = optimized_same(accumulate(op, "(tanh (mul x w_))"), exact ? 0 : 1e-11);
    CHECK(count_ops(out, ops::OpKind::Scan) == 0);
  }
  // logaddexp of the same value every step has no closed form here: the
  // loop stays, with its values.
  optimized_same(accumulate("logaddexp", "w_"));
  // The accumulated value on the left, a scalar sequence broadcast to the state.
  const ops::Graph left = optimized_same(R"((input xs (f64 30)) (input h0 (f64 4))
    (output (index (get 0 (scan :sequences (xs) :sit-sot (h0) (fn (x h) (add (exp x) h)))) -1)))");
  CHECK(count_ops(left, ops::OpKind::Scan) == 0);
  CHECK(count_ops(left, ops::OpKind::Sum) == 1);
}

TEST_CASE("taps and a constant step count read the rows the steps read") {
  const ops::Graph out = optimized_same(R"((input xs (f64 12 2)) (input h0 (f64 2))
    (output (index (get 0 (scan :n-steps 7 :sequences ((xs :taps (0 2))) :sit-sot (h0)
      (fn (a b h) (add h (mul a b))))) -1)))");
  CHECK(count_ops(out, ops::OpKind::Scan) == 0);
  // One sequence of unknown length: one row gives no step, where the
  // read at -1 fails; the closed form would be h0 there, so the loop
  // stays (docs/architecture.md decision 13).
  const ops::Graph unknown = optimized_same(R"((input xs (f64 ?)) (input h0 f64)
    (output (index (get 0 (scan :sequences ((xs :taps (0 1))) :sit-sot (h0)
      (fn (a b h) (maximum h (sub b a))))) -1)))");
  CHECK(count_ops(unknown, ops::OpKind::Scan) == 1);
}

TEST_CASE("integer sums are exact") {
  const ops::Graph out = optimized_same(R"((input xs (i64 25)) (input h0 i64)
    (output (index (get 0 (scan :sequences (xs) :sit-sot (h0) (fn (x h) (add h (mul x x))))) -1)))",
                                        0);
  CHECK(count_ops(out, ops::OpKind::Scan) == 0);
}

TEST_CASE("a long float sum differs from the loop only by rounding") {
  const ops::Graph out = optimized_same(R"((input xs (f64 20000)) (input h0 f64)
    (output (index (get 0 (scan :sequences (xs) :sit-sot (h0) (fn (x h) (add h (sin x))))) -1)))",
                                        1e-10);
  CHECK(count_ops(out, ops::OpKind::Scan) == 0);
}

TEST_CASE("a sum of outer products becomes one matrix product") {
  // PyTensor's push-out-add case: Σₜ aₜ bₜᵀ accumulated by a loop is aᵀ·b.
  for (const char* seqs : {"(a b) (fn (x y acc) (add acc (dot (expand_dims x :axis 1) "
                           "(expand_dims y :axis 0))))",
                           "((expand_dims a :axis 2) (expand_dims b :axis 1)) "
                           "(fn (x y acc) (add acc (dot x y)))"}) {
    const ops::Graph out = optimized_same(fmt::format(R"((input a (f64 30 4)) (input b (f64 30 3))
      (input z (f64 4 3)) (output (index (get 0 (scan :sit-sot (z) :sequences {})) -1)))",
                                                      seqs),
                                          1e-12);
    CHECK(count_ops(out, ops::OpKind::Scan) == 0);
    CHECK(count_ops(out, ops::OpKind::Dot) == 1);
    CHECK(count_ops(out, ops::OpKind::Sum) == 0);
  }
}

TEST_CASE("sequences of unknown lengths accumulate over the rows they share") {
  // PyTensor's test_sum_dot with unknown shapes: the loop runs as many
  // steps as the shorter sequence has rows. With no row the read at -1
  // fails, where the closed form would be z: the loop stays (decision 13),
  // and so does the failure. With static lengths it is one product.
  const std::string text = R"((input a (f64 ? 4)) (input b (f64 ? 3)) (input z (f64 4 3))
    (output (index (get 0 (scan :sit-sot (z) :sequences ((expand_dims a :axis 2)
      (expand_dims b :axis 1)) (fn (x y acc) (add acc (dot x y))))) -1)))";
  const ops::Graph out = optimized_same(text);
  CHECK(count_ops(out, ops::OpKind::Scan) == 1);
  std::string known = text;
  known.replace(known.find("(f64 ? 4)"), 9, "(f64 9 4)");
  known.replace(known.find("(f64 ? 3)"), 9, "(f64 5 3)");
  const ops::Graph product = optimized_same(known);
  CHECK(count_ops(product, ops::OpKind::Scan) == 0);
  CHECK(count_ops(product, ops::OpKind::Dot) == 1);
  const ops::Graph g = eqsat::testing::graph(text);
  for (auto [ra, rb] : {std::pair{9, 5}, {3, 8}, {0, 4}}) {
    INFO(ra << " and " << rb << " rows");
    std::vector<ops::Array> in{ops::Array::filled(ops::DType::F64, {ra, 4}, 0.5),
                               ops::Array::filled(ops::DType::F64, {rb, 3}, 0.25),
                               ops::Array::filled(ops::DType::F64, {4, 3}, 1)};
    for (std::int64_t i = 0; i < in[0].size(); ++i) in[0].data<double>()[i] += 0.1 * i;
    const auto read = [&](const ops::Graph& graph) -> std::optional<ops::Array> {
      try {
        return backend::compile(graph).run(in)[0];
      } catch (const backend::RuntimeError&) {
        return std::nullopt;
      }
    };
    const auto expected = read(g);
    const auto actual = read(out);
    REQUIRE(actual.has_value() == expected.has_value());
    if (!expected) continue;  // no step: both fail at the read
    for (std::int64_t i = 0; i < expected->size(); ++i)
      CHECK(actual->element(i) == Approx(expected->element(i)).epsilon(1e-12));
  }
}

TEST_CASE("per-step products of sequences accumulate as reductions") {
  const ops::Graph out = optimized_same(R"((input a (f64 20 4)) (input b (f64 20 4))
    (input w (f64 3 4)) (input h0 f64) (input g0 (f64 3))
    (let s (scan :sequences (a b) :sit-sot (h0 g0) :non-sequences (w)
      (fn (x y h g ww) (sub h (dot x y)) (add g (dot ww (mul x y))))))
    (output (index (get 0 s) -1)) (output (index (get 1 s) -1)))",
                                        1e-12);
  CHECK(count_ops(out, ops::OpKind::Scan) == 0);
}

TEST_CASE("a loop accumulating the same value every step has a closed form") {
  // PyTensor's first scan example, A**k: k products of A.
  for (const char* op : {"add", "sub", "mul", "maximum", "minimum"}) {
    INFO(op);
    const ops::Graph out = optimized_same(fmt::format(R"((input a (f64 6)) (input h0 (f64 6))
      (output (index (get 0 (scan :n-steps 5 :sit-sot (h0) :non-sequences (a)
        (fn (h w) ({} h (exp w))))) -1)))",
                                                      op),
                                          1e-12);
    CHECK(count_ops(out, ops::OpKind::Scan) == 0);
  }
  // A run-time step count: a count below 1 makes the loop's read fail
  // (index -1 of an empty history), and the closed form would return a
  // value there, so the loop stays (docs/architecture.md decision 13).
  const ops::Graph power = optimize(eqsat::testing::graph(R"((input a (f64 6)) (input k i64)
    (output (index (get 0 (scan :n-steps k :sit-sot ((ones_like a)) :non-sequences (a)
      (fn (h w) (mul h w)))) -1)))"),
                                    load_default_rules());
  CHECK(count_ops(power, ops::OpKind::Scan) == 1);
  // A state carried unchanged (h_t = h_{t-1}) ends as it started.
  const ops::Graph carried = optimized_same(R"((input a (f64 6)) (input h0 (f64 6))
    (let s (scan :n-steps 9 :sit-sot (h0 a) (fn (h g) h (tanh (add g h)))))
    (output (index (get 0 s) -1)) (output (index (get 1 s) -1)))",
                                            1e-12);
  CHECK(carried.outputs[0].term->kind() == ops::OpKind::Input);
  // Also when the body writes it another way the rules prove equal (h·1).
  const ops::Graph times_one = optimized_same(R"((input a (f64 6)) (input h0 (f64 6))
    (let s (scan :n-steps 9 :sit-sot (h0 a) (fn (h g) (mul h 1.0) (tanh (add g h)))))
    (output (index (get 0 s) -1)) (output (index (get 1 s) -1)))",
                                              1e-12);
  CHECK(times_one.outputs[0].term->kind() == ops::OpKind::Input);
  const ops::Graph by_length = optimized_same(R"((input xs (f64 9 2)) (input h0 i64) (input c i64)
    (output (index (get 0 (scan :sequences (xs) :sit-sot (h0) :non-sequences (c)
      (fn (x h w) (add h w)))) -1)))",
                                              0);
  CHECK(count_ops(by_length, ops::OpKind::Scan) == 0);
}

TEST_CASE("an accumulated product of sequence elements and states becomes one product") {
  // PyTensor's push-out-add: acc + xₜ·δₜᵀ with δₜ read from the states; the
  // loop returns δₜ, and the sum is Xᵀ·Δ outside.
  const ops::Graph out = optimized_same(R"((input xs (f64 30 4)) (input W (f64 3 3))
    (input h0 (f64 3)) (input acc0 (f64 4 3))
    (let s (scan :sequences (xs) :sit-sot (h0 acc0) :non-sequences (W)
      (fn (x h acc w)
        (tanh (add (dot w h) (sum x)))
        (add acc (dot (expand_dims x :axis 1) (expand_dims (mul h (sum x)) :axis 0))))))
    (output (index (get 1 s) -1)) (output (index (get 0 s) -1)))",
                                        1e-12);
  REQUIRE(count_ops(out, ops::OpKind::Scan) == 1);
  int sitsots = 0;
  std::function<void(ops::TermRef)> walk = [&](ops::TermRef t) {
    if (t->kind() == ops::OpKind::Scan)
      sitsots += static_cast<int>(t->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan).num_sitsot);
    for (ops::TermRef o : t->operands()) walk(o);
  };
  walk(out.outputs[0].term);
  CHECK(sitsots == 1);  // the accumulator left the loop
  // An elementwise accumulation of a state stays in the loop (storing every
  // step to save an add would not pay).
  const ops::Graph stays = optimized_same(R"((input x0 (f64 3))
    (let s (scan :n-steps 50 :sit-sot (x0 x0) (fn (x y) (tanh x) (add y x))))
    (output (index (get 1 s) -1)))");
  CHECK(count_ops(stays, ops::OpKind::Scan) == 1);
}

TEST_CASE("a loop accumulating several products sheds every accumulator") {
  // PyTensor's machine-translation gradient: one loop carries a state and
  // three sums of outer products. Each sum leaves the loop as a product of
  // stacked values, and the loop left holds the state alone. A sum of two
  // per-step products is returned once (one stored value, not two).
  const ops::Graph out = optimized_same(R"((input xs (f64 12 4 5)) (input as (f64 12 4 5))
    (input W (f64 5 5)) (input h0 (f64 4 5)) (input z (f64 5 5))
    (let s (scan :sequences (xs as) :sit-sot (h0 z z z) :non-sequences (W)
      (fn (x a h g1 g2 g3 w)
        (tanh (add x (dot h w)))
        (add g1 (dot (transpose x) (mul a h)))
        (add g2 (dot (transpose x) (sub (mul a h) (mul x h))))
        (add g3 (dot (transpose a) (mul h h))))))
    (output (index (get 0 s) -1)) (output (index (get 1 s) -1))
    (output (index (get 2 s) -1)) (output (index (get 3 s) -1)))",
                                        1e-12);
  REQUIRE(count_ops(out, ops::OpKind::Scan) == 1);
  for (const auto& o : out.outputs) {
    int sitsots = 0;
    int nitsots = 0;
    std::function<void(ops::TermRef)> walk = [&](ops::TermRef t) {
      if (t->kind() == ops::OpKind::Scan) {
        const auto& spec = t->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
        sitsots = static_cast<int>(spec.num_sitsot);
        nitsots = static_cast<int>(spec.num_nitsot);
        return;
      }
      for (ops::TermRef k : t->operands()) walk(k);
    };
    walk(o.term);
    INFO(ops::print_graph(out));
    CHECK(sitsots == 1);  // the state alone
    CHECK(nitsots <= 3);  // one stored value per sum
  }
}

TEST_CASE("a reduction inside the accumulated function is no obstacle") {
  // (sum x) moves out as a sequence of row sums; the loop then adds them up.
  const ops::Graph out = optimized_same(accumulate("add", "(sum x)"), 1e-12);
  CHECK(count_ops(out, ops::OpKind::Scan) == 0);
}

TEST_CASE("loops that do not only accumulate stay loops") {
  // The state is read whole; the function reads the state; an until-loop;
  // a state subtracted from the step's value (h_t = x_t - h_{t-1} alternates).
  for (const std::string& text : {
           std::string(R"((input xs (f64 10 3)) (input h0 (f64 3))
             (output (get 0 (scan :sequences (xs) :sit-sot (h0) (fn (x h) (add h x))))))"),
           accumulate("add", "(mul x h)"),
           std::string(R"((input xs (f64 10 3)) (input h0 (f64 3))
             (output (index (get 0 (scan :sequences (xs) :sit-sot (h0) :until true
               (fn (x h) (add h x) (gt (sum h) 2.0)))) -1)))"),
           std::string(R"((input xs (f64 10 3)) (input h0 (f64 3))
             (output (index (get 0 (scan :sequences (xs) :sit-sot (h0) (fn (x h) (sub x h)))) -1)))"),
       }) {
    const ops::Graph out = optimized_same(text);
    CHECK(count_ops(out, ops::OpKind::Scan) == 1);
  }
}

TEST_CASE("accumulating loops nested in loops and defs become reductions") {
  const ops::Graph nested = optimized_same(R"((input xs (f64 5 6)) (input h0 f64)
    (output (get 0 (scan :sequences (xs) :sit-sot (h0)
      (fn (row h)
        (index (get 0 (scan :sequences (row) :sit-sot (h) (fn (x g) (add g (square x))))) -1))))))");
  CHECK(count_ops(nested, ops::OpKind::Scan) == 1);  // the outer loop is a true recurrence
  const ops::Graph in_def = optimized_same(R"((input xs (f64 8 3)) (input h0 (f64 3))
    (def total (fn ((s (f64 8 3)) (i (f64 3)))
      (index (get 0 (scan :sequences (s) :sit-sot (i) (fn (x h) (minimum h (neg x))))) -1)))
    (output (call total xs h0)))");
  CHECK(count_ops(in_def, ops::OpKind::Scan) == 0);
}

TEST_CASE("a loop that may run no step keeps its last row's failure, whatever its closed form") {
  // The state is carried unchanged from an initial value that may fail
  // itself (a run-time index): with 0 steps the written read fails, and so
  // must the optimized graph, at any step count known only at run time.
  const ops::Graph g = eqsat::testing::graph(R"((input y (f64 4 3)) (input m i64) (input n i64)
    (let s (scan :n-steps n :sit-sot ((index y m)) (fn (h) h)))
    (output (index (get 0 s) -1)))");
  const ops::Graph out = optimize(g, load_default_rules());
  CHECK(count_ops(out, ops::OpKind::Scan) == 1);
  const ops::Array y = ops::Array::filled(ops::DType::F64, {4, 3}, 2.0);
  const ops::Array m = ops::Array::filled(ops::DType::I64, {}, 1.0);
  CHECK_THROWS_AS(backend::compile(out).run({y, m, ops::Array::filled(ops::DType::I64, {}, 0.0)}),
                  backend::RuntimeError);
  const auto two = backend::compile(out).run({y, m, ops::Array::filled(ops::DType::I64, {}, 2.0)});
  CHECK(two[0].element(0) == 2.0);
}
