// scan-push-out-nitsots: a nit-sot that is elementwise in the sequence
// elements and non-sequences (or a dot with a non-sequence, a reduction
// over its own axes) is computed outside on the whole sequences; a
// loop-invariant nit-sot becomes a broadcast; until-loops and nit-sots
// reading a state stay loops.
#include "tests/rules/loop_testing.hpp"

#include "tests/ops/op_samples.hpp"

#include <fmt/format.h>

using namespace eqsat;
using namespace eqsat::testing;

namespace {

// Optimizes `text` (checked as optimized_checked does) and returns the
// number of loops left.
std::size_t loops_after(const std::string& text) {
  static const rules::RuleProgram kWithout =
      default_rules_without({"scan-push-out-nitsots", "scan-push-out-seqs"});
  return scans_in(optimized_checked(text, kWithout)).size();
}

}  // namespace

TEST_CASE("an elementwise map over a sequence is computed outside the loop") {
  CHECK(loops_after(R"(
    (input xs (f64 40 4)) (input a (f64 4))
    (output (get 0 (scan :sequences (xs) :nit-sot 1 :non-sequences (a)
      (fn (x w) (exp (mul x w)))))))") == 0);
}

TEST_CASE("a map over a sequence of unknown length is computed outside the loop") {
  CHECK(loops_after(R"(
    (input xs (f64 ? 3)) (input a f64)
    (output (get 0 (scan :sequences (xs) :nit-sot 1 :non-sequences (a)
      (fn (x w) (where (gt x 0.0) (mul x w) (neg x)))))))") == 0);
}

TEST_CASE("taps read windows of the sequence") {
  CHECK(loops_after(R"(
    (input xs (f64 12 2))
    (output (get 0 (scan :sequences ((xs :taps (0 2))) :nit-sot 1
      (fn (x0 x2) (sub x2 x0))))))") == 0);
  CHECK(loops_after(R"(
    (input xs (f64 12 2))
    (output (get 0 (scan :n-steps 5 :sequences ((xs :taps (1))) :nit-sot 1
      (fn (x) (square x))))))") == 0);
}

TEST_CASE("operands of lower rank broadcast the same inside and outside") {
  CHECK(loops_after(R"(
    (input xs (f64 7 3)) (input ys (f64 7 2 3)) (input b (f64 2 3))
    (output (get 0 (scan :sequences (xs ys) :nit-sot 1 :non-sequences (b)
      (fn (x y w) (add (mul x w) y))))))") == 0);
}

TEST_CASE("dot with a non-sequence and reductions over the element axes vectorize") {
  CHECK(loops_after(R"(
    (input xs (f64 9 4)) (input W (f64 4 3))
    (output (get 0 (scan :sequences (xs) :nit-sot 1 :non-sequences (W)
      (fn (x w) (dot x w))))))") == 0);
  CHECK(loops_after(R"(
    (input xs (f64 9 4)) (input W (f64 3 4))
    (output (get 0 (scan :sequences (xs) :nit-sot 1 :non-sequences (W)
      (fn (x w) (dot w x))))))") == 0);
  CHECK(loops_after(R"(
    (input xs (f64 9 4 5))
    (output (get 0 (scan :sequences (xs) :nit-sot 2
      (fn (x) (sum x :axis (1) :keepdims true) (log_softmax x :axis 0))))))") == 0);
}

TEST_CASE("products of two sequences and axis moves vectorize") {
  // Every form of a per-step product: vector·vector, matrix·vector,
  // vector·matrix, matrix·matrix, and an invariant matrix or vector on the
  // left of a per-step matrix or vector.
  for (const char* body :
       {"(dot a v)", "(dot m v)", "(dot v m)", "(dot m (transpose m))", "(dot w m)", "(dot u m)",
        "(dot u v)", "(dot w v)",
        "(squeeze (dot (expand_dims v :axis 0) (expand_dims a :axis 1)) :axis (0))",
        "(transpose (dot (expand_dims v :axis 1) (expand_dims a :axis 0)))"}) {
    INFO(body);
    CHECK(loops_after(fmt::format(R"(
      (input vs (f64 6 3)) (input as (f64 6 3)) (input ms (f64 6 3 3))
      (input W (f64 2 3)) (input U (f64 3))
      (output (get 0 (scan :sequences (vs as ms) :nit-sot 1 :non-sequences (W U)
        (fn (v a m w u) {})))))",
                                  body)) == 0);
  }
}

// The catalogue's AxisWise ops are the ones the vectorizer moves axes
// for: a loop applying any of them to sequence rows leaves no loop. Their
// shared samples (op_samples.hpp) read m, x and u, here sequence rows.
TEST_CASE("every axis-wise op of the catalogue vectorizes") {
  std::size_t checked = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<ops::OpKind>(k);
    if (!ops::is_axis_wise(kind)) continue;
    // concat's sample appends a constant row, which would need repeating.
    const std::string body =
        kind == ops::OpKind::Concat ? "(concat m m :axis 1)" : ops::test::op_sample(kind);
    INFO(body);
    CHECK(loops_after(fmt::format(R"(
      (input ms (f64 5 2 3)) (input xs (f64 5 3)) (input us (f64 5 4 3))
      (output (get 0 (scan :sequences (ms xs us) :nit-sot 1 (fn (m x u) {})))))",
                                  body)) == 0);
    ++checked;
  }
  CHECK(checked == 15);
}

TEST_CASE("a loop repeating an invariant value becomes a broadcast") {
  const ops::Graph out = optimized(graph(R"(
    (input a (f64 4))
    (output (get 0 (scan :n-steps 5 :nit-sot 1 :non-sequences (a) (fn (w) (exp w))))))"));
  INFO(ops::print_graph(out));
  CHECK(scans_in(out).empty());
  CHECK(contains(out.outputs[0].term, ops::OpKind::BroadcastTo));
  CHECK(loops_after(R"(
    (input a (f64 4))
    (output (get 0 (scan :n-steps 5 :nit-sot 1 :non-sequences (a) (fn (w) (exp w))))))") == 0);
}

TEST_CASE("an invariant value of unknown shape repeats as a product with ones") {
  // PyTensor's TestPushOutDot::test_pushout_all: everything a non-sequence.
  const std::string text = R"(
    (input h0 (f64 ?)) (input w1 (f64 ? ?)) (input w2 (f64 ? ?))
    (output (get 0 (scan :n-steps 5 :nit-sot 1 :non-sequences (h0 w1 w2)
      (fn (h a b) (dot h (add a b)))))))";
  const ops::Graph out = optimize_and_compare(graph(text));
  CHECK(scans_in(out).empty());
  CHECK(contains(out.outputs[0].term, ops::OpKind::Ones));
  CHECK(loops_after(text) == 0);
}

TEST_CASE("a sit-sot carried unchanged repeats its initial value") {
  // PyTensor's test_hash_equality_after_inner_optimization: x + 0 and x·1.
  const ops::Graph out = optimize_and_compare(graph(R"(
    (input x0 f64) (input v0 (f64 ?))
    (output (get 0 (scan :n-steps 5 :sit-sot (x0) (fn (x) (add x 0)))))
    (output (get 0 (scan :n-steps 4 :sit-sot (v0) (fn (v) (mul v 1))))))"));
  CHECK(scans_in(out).empty());
  // Not when the state changes, nor for an until-loop's unknown count.
  CHECK(loops_after(R"(
    (input x0 f64)
    (output (get 0 (scan :n-steps 5 :sit-sot (x0) (fn (x) (add x 1))))))") == 1);
  CHECK(loops_after(R"(
    (input x0 f64)
    (output (get 0 (scan :n-steps 5 :sit-sot (x0) :until true (fn (x) x (gt x 1.0))))))") == 1);
}

TEST_CASE("a nit-sot returning a state's past value is the state's history shifted") {
  // PyTensor's TestPushOutDot::test_pushout_nomodif: (i + 10, i_tm1).
  const ops::Graph nomodif = optimize_and_compare(graph(R"(
    (input inp (f64 ? 2))
    (output (get 0 (scan :sequences (inp) :sit-sot ((const (f64 2) (0.0 0.0))) :nit-sot 1
      (fn (i prev) (add i 10) prev))))
    (output (get 1 (scan :sequences (inp) :sit-sot ((const (f64 2) (0.0 0.0))) :nit-sot 1
      (fn (i prev) (add i 10) prev)))))"));
  CHECK(scans_in(nomodif).empty());
  // A real recurrence: the nit-sot goes, the state stays; a mit-sot's
  // deeper tap reads further back.
  CHECK(proves(R"(
    (input xs (f64 ? 3)) (input h0 (f64 3))
    (let s (scan :sequences (xs) :sit-sot (h0) :nit-sot 1 (fn (x h) (mul h x) h)))
    (output (get 1 s))
    (output (slice (concat (expand_dims h0 :axis 0) (get 0 s)) :start 0 :stop -1)))",
               {"scan-push-out-nitsots"}));
  CHECK(proves(R"(
    (input xs (f64 ? 3)) (input h0 (f64 2 3))
    (let s (scan :sequences (xs) :mit-sot ((h0 :taps (-2 -1))) :nit-sot 1
      (fn (x a b) (add (mul a x) b) a)))
    (output (get 1 s))
    (output (slice (concat h0 (get 0 s)) :start 0 :stop -2)))",
               {"scan-push-out-nitsots"}));
  // Which form runs faster is the cost model's choice; both agree.
  optimize_and_compare(graph(R"(
    (input xs (f64 ? 3)) (input h0 (f64 2 3))
    (let s (scan :sequences (xs) :mit-sot ((h0 :taps (-2 -1))) :nit-sot 1
      (fn (x a b) (add (mul a x) b) a)))
    (output (get 0 s))
    (output (get 1 s)))"));
}

TEST_CASE(":keep on a vectorized nit-sot keeps the last steps") {
  CHECK(loops_after(R"(
    (input xs (f64 10 3))
    (output (get 0 (scan :sequences (xs) :nit-sot 1 :keep (3) (fn (x) (exp x))))))") == 0);
}

TEST_CASE("until-loops and nit-sots reading a state stay loops") {
  CHECK(loops_after(R"(
    (input xs (f64 10 3))
    (output (get 0 (scan :sequences (xs) :nit-sot 1 :until true
      (fn (x) (exp x) (gt (sum x) 1.0))))))") == 1);
  CHECK(loops_after(R"(
    (input xs (f64 10 3)) (input h0 (f64 3))
    (output (get 1 (scan :sequences (xs) :sit-sot (h0) :nit-sot 1
      (fn (x h) (add h x) (mul h x))))))") == 1);
  // A loop that may run no step keeps its invariant work inside.
  CHECK(loops_after(R"(
    (input xs (f64 ? 3)) (input a (f64 3))
    (output (get 0 (scan :sequences (xs) :nit-sot 1 :non-sequences (a)
      (fn (x w) (add x (max w)))))))") == 1);
}

TEST_CASE("a map nested in a loop body is vectorized inside the body") {
  const ops::Graph out = optimized(graph(R"(
    (input xs (f64 5 6 3)) (input h0 (f64 6 3))
    (output (get 0 (scan :sequences (xs) :sit-sot (h0)
      (fn (x h) (add h (get 0 (scan :sequences (x) :nit-sot 1 (fn (r) (exp r))))))))))"));
  INFO(ops::print_graph(out));
  CHECK(scans_in(out).size() == 1);
  check_same_values(graph(R"(
    (input xs (f64 5 6 3)) (input h0 (f64 6 3))
    (output (get 0 (scan :sequences (xs) :sit-sot (h0)
      (fn (x h) (add h (get 0 (scan :sequences (x) :nit-sot 1 (fn (r) (exp r))))))))))"),
                    out);
}

TEST_CASE("a map in a def is vectorized") {
  CHECK(loops_after(R"(
    (input xs (f64 8 3))
    (def f (fn ((s (f64 8 3))) (get 0 (scan :sequences (s) :nit-sot 1 (fn (x) (tanh x))))))
    (output (call f xs)))") == 0);
}

TEST_CASE("the reverse loop of a map's gradient is vectorized") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 4)) (input w (f64 4))
    (output (grad (sum (get 0 (scan :sequences (xs) :nit-sot 1 :non-sequences (w)
      (fn (x v) (mul (sin x) v))))) w)))");
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(out));
  // What is left is the sum over steps (a reduction: not this rewrite's).
  for (ops::TermRef s : scans_in(out)) CHECK_FALSE(contains(s->operand(0), ops::OpKind::Sin));
  check_same_values(graph(R"(
    (input xs (f64 6 4)) (input w (f64 4))
    (output (sum (sin xs) :axis (0))))"),
                    out);
}

namespace {

// A random body expression over the elements x (3) and y (2 3) of two
// sequences and the non-sequences w (3), m (3 3), c (scalar), with every
// kind of op the vectorizer handles (elementwise, dot, reductions, slice,
// flip, concat, stack); `rank` is set to the rank of its value.
std::string random_body(std::mt19937_64& rng, int depth, int& rank) {
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  if (depth == 0 || pick(4) == 0) {
    static const std::pair<const char*, int> kLeaves[] = {
        {"x", 1}, {"y", 2}, {"w", 1}, {"c", 0}, {"0.5", 0}};
    const auto& [text, r] = kLeaves[pick(5)];
    rank = r;
    return text;
  }
  int a = 0, b = 0, c = 0;
  switch (pick(8)) {
    case 0: {
      static const char* kUnary[] = {"tanh", "sin", "neg", "abs"};
      const std::string e = random_body(rng, depth - 1, a);
      rank = a;
      return fmt::format("({} {})", kUnary[pick(4)], e);
    }
    case 1:
    case 2: {
      static const char* kBinary[] = {"add", "mul", "sub", "maximum"};
      const std::string l = random_body(rng, depth - 1, a), r = random_body(rng, depth - 1, b);
      rank = std::max(a, b);
      return fmt::format("({} {} {})", kBinary[pick(4)], l, r);
    }
    case 3: {
      const std::string p = random_body(rng, depth - 1, a), l = random_body(rng, depth - 1, b),
                        r = random_body(rng, depth - 1, c);
      rank = std::max({a, b, c});
      return fmt::format("(where (gt {} 0.0) {} {})", p, l, r);
    }
    case 4: {
      const std::string e = random_body(rng, depth - 1, a);
      rank = std::max(a, 1);
      return a == 0 ? fmt::format("(mul x {})", e) : fmt::format("(dot {} m)", e);
    }
    case 5: {
      const std::string e = random_body(rng, depth - 1, a);
      rank = a;
      return a == 0 ? e : fmt::format("(add {0} (sum {0} :axis (-1) :keepdims true))", e);
    }
    case 6: {  // slice, flip and concat: the last axis rearranged
      const std::string e = random_body(rng, depth - 1, a);
      rank = a;
      return a == 0 ? e
                    : fmt::format(
                          "(concat (slice {0} :axis -1 :stop 1) (flip (slice {0} :axis -1 "
                          ":start 1) :axis -1) :axis -1)",
                          e);
    }
    default: {  // stack and a reduction over the new axis
      const std::string e = random_body(rng, depth - 1, a);
      rank = a;
      return fmt::format("(sum (stack {0} (neg {0}) (mul 2.0 {0}) :axis 0) :axis (0))", e);
    }
  }
}

}  // namespace

TEST_CASE("random maps and recurrences keep their values when pushed out") {
  std::mt19937_64 rng(2024);
  int vectorized = 0;
  for (int trial = 0; trial < 25; ++trial) {
    int r1 = 0, r2 = 0;
    const std::string nitsot = random_body(rng, 4, r1), prefix = random_body(rng, 4, r2);
    const std::string text = fmt::format(R"(
      (input xs (f64 9 3)) (input ys (f64 9 2 3)) (input w (f64 3)) (input m (f64 3 3))
      (input c f64) (input h0 (f64 2 3))
      (let map (scan :sequences (xs ys) :nit-sot 1 :non-sequences (w m c)
        (fn (x y w m c) (add {} (mul x 0.0)))))
      (let rec (scan :sequences (xs ys) :sit-sot (h0) :non-sequences (w m c)
        (fn (x y h w m c) (tanh (add h {})))))
      (output (get 0 map)) (output (get 0 rec)))",
                                         nitsot, prefix);
    INFO(text);
    const ops::Graph g = graph(text);
    const ops::Graph out = optimized(g);
    check_same_values(g, out, static_cast<std::uint64_t>(trial));
    // The map is computed without a loop.
    vectorized += !contains(out.outputs[0].term, ops::OpKind::Scan);
  }
  CHECK(vectorized == 25);
}

TEST_CASE("a nit-sot of the new state value is computed from the stacked states") {
  const std::string text = R"(
    (input xs (f64 20 4)) (input W (f64 4 3)) (input U (f64 4 4)) (input h0 (f64 4))
    (output (get 1 (scan :sequences (xs) :sit-sot (h0) :nit-sot 1 :non-sequences (U W)
      (fn (x h u w) (let hn (tanh (add (dot h u) x))) hn (dot hn w))))))";
  CHECK(loops_after(text) == 1);
  // The rewrite applies; extraction takes it once the loop can drop the
  // nit-sot (removing unused outputs, issue 9 point 1).
  rules::OptimizeReport report;
  optimized(graph(text), &report);
  const auto rule = std::ranges::find(report.rules, std::string("scan-push-out-nitsots"),
                                      &rules::RuleReport::name);
  REQUIRE(rule != report.rules.end());
  CHECK(rule->applications >= 1);
  // Not from the previous state: h is read before the step, not stacked.
  CHECK(loops_after(R"(
    (input xs (f64 20 4)) (input W (f64 4 3)) (input h0 (f64 4))
    (output (get 1 (scan :sequences (xs) :sit-sot (h0) :nit-sot 1 :non-sequences (W)
      (fn (x h w) (tanh (add h x)) (dot h w))))))") == 1);
}

TEST_CASE("an op that may fail is not batched for a loop that may run no step") {
  // Over no rows, xs + w fails to broadcast when w has 0 elements; the loop
  // runs no step and returns no rows (issue 25).
  const char* text = R"(
    (input xs (f64 ? 3)) (input w (f64 ?))
    (let s (scan :sequences (xs) :nit-sot 1 :non-sequences (w) (fn (x v) (add x v))))
    (output (get 0 s)))";
  const ops::Graph g = graph(text);
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(out));
  const auto none = backend::compile(out).run(
      {ops::Array(ops::DType::F64, {0, 3}), ops::Array(ops::DType::F64, {0})});
  CHECK(none[0].shape() == ops::Dims{0, 3});
  const std::vector<ops::Array> two{ops::Array::filled(ops::DType::F64, {2, 3}, 1.0),
                                    ops::Array::filled(ops::DType::F64, {3}, 0.5)};
  CHECK(backend::compile(out).run(two)[0].element(5) == 1.5);
}
