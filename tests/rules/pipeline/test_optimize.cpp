// The optimize pipeline on small graphs: each shipped rule set takes a
// start graph to the expected goal ("start ⇒ goal"), typed rewriting
// refuses ill-typed right sides, limits are honoured, runs are
// deterministic, and alpha-equivalent scans share one e-class on loading.
#include "rules/tensor/tensor_egraph.hpp"

#include "tests/support/check_optimizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::rules::ast;
using namespace eqsat::testing;

namespace {

const RuleReport& rule(const OptimizeReport& r, const std::string& name) {
  for (const auto& x : r.rules)
    if (x.name == name) return x;
  FAIL("no rule " << name);
  throw;
}

}  // namespace

TEST_CASE("canonicalize: identities, double negation, sub normal form") {
  check_optimizes(shipped_rules(),
                  "(input x (f64 ?)) (input y (f64 ?)) (output (add (neg (neg x)) (neg y)))",
                  "(input x (f64 ?)) (input y (f64 ?)) (output (sub x y))");
  check_optimizes(shipped_rules(), "(input x (f64 ?)) (output (mul (add x 0) 1))",
                  "(input x (f64 ?)) (output x)");
  check_optimizes(shipped_rules(), "(input x (f64 3)) (output (pow x 2))",
                  "(input x (f64 3)) (output (square x))");
  check_optimizes(shipped_rules(), "(input x (f32 2 3)) (output (transpose (transpose x)))",
                  "(input x (f32 2 3)) (output x)");
  check_optimizes(shipped_rules(), "(input x (f64 3)) (output (mul (abs x) (abs x)))",
                  "(input x (f64 3)) (output (square x))");
}

TEST_CASE("canonicalize: one to any power and comparisons of a value with itself") {
  // A comparison known everywhere selects one side of a where (of static
  // shape, as literals in patterns match); a bare one stays when it costs
  // no more than the fill it equals.
  const ops::Graph g = graph(R"(
    (input x (f64 4)) (input k (i64 4))
    (output (pow 1.0 x)) (output (where (lt x x) x (neg x))) (output (where (gt x x) x (neg x)))
    (output (where (le k k) k (neg k))) (output (where (ge k k) k (neg k)))
    (output (where (eq k k) k (neg k))) (output (where (ne k k) k (neg k)))
    (output (where (le x x) x (neg x))) (output (where (eq x x) x (neg x)))
    (output (where (ne x x) x (neg x))))");
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(out));
  CHECK_FALSE(contains(out.outputs[0].term, ops::OpKind::Pow));
  for (std::size_t i = 1; i < 7; ++i) {
    INFO("output " << i);
    CHECK_FALSE(contains(out.outputs[i].term, ops::OpKind::Where));
  }
  // A float NaN is neither equal to nor at most itself: those stay.
  for (std::size_t i = 7; i < 10; ++i) CHECK(contains(out.outputs[i].term, ops::OpKind::Where));
  // Values, NaN and infinities included.
  ops::Array x(ops::DType::F64, {4}), k(ops::DType::I64, {4});
  const double xs[] = {NAN, INFINITY, -2.5, 0};
  for (int i = 0; i < 4; ++i) {
    x.data<double>()[i] = xs[i];
    k.data<std::int64_t>()[i] = i - 2;
  }
  const auto want = backend::compile(g).run({x, k}), got = backend::compile(out).run({x, k});
  for (std::size_t o = 0; o < want.size(); ++o) CHECK(got[o].same_value(want[o]));
}

TEST_CASE("typed rewriting: a literal bigger than the operand broadcasts the right side") {
  // 0 has shape (3): x + 0 broadcasts a scalar x to (3), so it is x
  // broadcast, not x; and the zeros are a broadcast scalar, not a dense array.
  OptimizeReport report;
  check_optimizes(shipped_rules(), "(input x f64) (output (add x (const (f64 3) (0 0 0))))",
                  "(input x f64) (output (broadcast_to x :shape (3)))", &report);
  CHECK(rule(report, "add-zero").applications >= 1);
  // a right side of another dtype is still refused: x + 0.5 - 0.5 is not x for an integer x
  const RuleProgram p = rules_from("(rewrite to-int (add ?x 0.5) ?x)");
  OptimizeReport r2;
  optimize(graph("(input n (i64 3)) (output (add n 0.5))"), p, &r2);
  CHECK(rule(r2, "to-int").refused >= 1);
  CHECK(rule(r2, "to-int").applications == 0);
}

TEST_CASE("guards: mul-zero only for finite operands") {
  check_optimizes(shipped_rules(), "(input n (i64 4)) (output (mul n 0))",
                  "(input n (i64 4)) (output (broadcast_to 0 :shape (4)))");
  check_optimizes(shipped_rules(), "(input x (f64 4)) (output (mul x 0))",
                  "(input x (f64 4)) (output (mul x 0))");
}

TEST_CASE("stabilize: the stable fused ops replace their expansions") {
  check_optimizes(shipped_rules(), "(input x (f64 5 3)) (output (log (softmax x :axis 1)))",
                  "(input x (f64 5 3)) (output (log_softmax x :axis 1))");
  check_optimizes(shipped_rules(), "(input x (f64 ?)) (output (log (add 1 x)))",
                  "(input x (f64 ?)) (output (log1p x))");
  check_optimizes(shipped_rules(), "(input x (f64 ?)) (output (sub (exp x) 1))",
                  "(input x (f64 ?)) (output (expm1 x))");
  check_optimizes(shipped_rules(), "(input x (f64 ?)) (output (log (add 1 (exp x))))",
                  "(input x (f64 ?)) (output (softplus x))");
  check_optimizes(shipped_rules(), "(input x (f64 ?)) (output (div 1 (add 1 (exp (neg x)))))",
                  "(input x (f64 ?)) (output (sigmoid x))");
  check_optimizes(shipped_rules(), "(input x (f64 4 ?)) (output (log (sum (exp x) :axis 1)))",
                  "(input x (f64 4 ?)) (output (logsumexp x :axis 1))");
}

TEST_CASE("linalg: a matrix chain is reordered by cost") {
  // (A·B)·v costs a matrix product; A·(B·v) two matrix-vector products.
  check_optimizes(shipped_rules(),
                  "(input a (f64 200 200)) (input b (f64 200 200)) (input v (f64 200 1))"
                  "(output (dot (dot a b) v))",
                  "(input a (f64 200 200)) (input b (f64 200 200)) (input v (f64 200 1))"
                  "(output (dot a (dot b v)))");
}

TEST_CASE("attribute variables bind and omitted attributes must be defaults") {
  const RuleProgram p = rules_from(R"(
    (rewrite sm (log (softmax ?x :axis ?a)) (log_softmax ?x :axis ?a))
    (rewrite tt (transpose (transpose ?x)) ?x))");
  check_optimizes(p, "(input x (f64 2 3)) (output (log (softmax x :axis 0)))",
                  "(input x (f64 2 3)) (output (log_softmax x :axis 0))");
  // Two (0 2 1) transposes are not two default (reversing) transposes.
  check_optimizes(
      p, "(input x (f64 2 3 4)) (output (transpose (transpose x :perm (0 2 1)) :perm (0 2 1)))",
      "(input x (f64 2 3 4)) (output (transpose (transpose x :perm (0 2 1)) :perm (0 2 1)))");
}

TEST_CASE("uniform constants fold through elementwise ops") {
  check_optimizes(shipped_rules(), "(input x (f64 2)) (output (add x (mul 2.0 3.0)))",
                  "(input x (f64 2)) (output (add x 6))");
}

TEST_CASE("small constant arrays fold through elementwise and shape ops") {
  check_optimizes(
      shipped_rules(),
      "(input x (f64 2 3)) (output (add x (transpose (mul (const (f64 3 2) (1 2 3 4 5 6)) 2.0))))",
      "(input x (f64 2 3)) (output (add x (const (f64 2 3) (2 6 10 4 8 12))))");
}

TEST_CASE("calls are inlined when cheaper, through get for several outputs - unused defs go") {
  const std::string start = R"(
    (input x (f64 8 4))
    (def twice (fn ((v (f64 ? 4))) (add v v)))
    (def both (fn ((v (f64 8 4))) (neg v) (exp v)))
    (let b (call both x))
    (output (call twice x))
    (output (get 1 b)))";
  OptimizeReport report;
  const ops::Graph out = optimize(graph(start), shipped_rules(), &report);
  const ops::Graph goal = graph("(input x (f64 8 4)) (output (add x x)) (output (exp x))");
  CHECK(out.outputs[0].term == goal.outputs[0].term);
  CHECK(out.outputs[1].term == goal.outputs[1].term);
  CHECK(out.defs.empty());
  CHECK(rule(report, "inline-calls").applications >= 2);
}

TEST_CASE("a length folded to a constant refines the type of the class using it") {
  const ops::Graph out = optimize(graph("(output (arange (add 2 3)))"), shipped_rules());
  CHECK(out.outputs[0].term->type() == ops::Type{ops::TensorType{ops::DType::I64, {5}}});
  CHECK(out.outputs[0].term == graph("(output (arange 5))").outputs[0].term);
}

TEST_CASE("the same input gives the same optimized graph twice") {
  const std::string text =
      "(input x (f64 8 ?)) (input y (f64 8 ?))"
      "(output (log (add 1 (exp (add (mul x y) (mul y x))))))"
      "(output (sub (exp (neg (neg x))) 1))";
  OptimizeReport r1, r2;
  const ops::Graph a = optimize(graph(text), shipped_rules(), &r1);
  const ops::Graph b = optimize(graph(text), shipped_rules(), &r2);
  CHECK(ops::print_graph(a) == ops::print_graph(b));
  CHECK(r1.enodes == r2.enodes);
  CHECK(r1.eclasses == r2.eclasses);
  CHECK(r1.cost_after <= r1.cost_before);
}

TEST_CASE("limits are honoured on an exploding rule set") {
  const RuleProgram p = rules_from(R"(
    (rewrite comm (add ?x ?y) (add ?y ?x))
    (birewrite assoc (add (add ?x ?y) ?z) (add ?x (add ?y ?z)))
    (rewrite grow (add ?x ?y) (add (add ?x ?y) 0))
    (schedule (saturate default :iter 50 :nodes 2000 :time 5)))");
  std::string chain = "a0";
  std::string inputs = "(input a0 (f64 4))";
  for (int i = 1; i < 8; ++i) {
    inputs += " (input a" + std::to_string(i) + " (f64 4))";
    chain = "(add " + chain + " a" + std::to_string(i) + ")";
  }
  OptimizeReport report;
  const ops::Graph out = optimize(graph(inputs + "(output " + chain + ")"), p, &report);
  REQUIRE(report.phases.size() == 1);
  CHECK(report.stop_reason == "node limit");
  CHECK(report.enodes < 2000 + 100);
  CHECK(out.outputs.size() == 1);
}

namespace {

// K sums of exponentials written twice, once with the operands of each
// `add` swapped: commutativity matches about once per e-node.
std::string duplicated_sums(int k) {
  std::string text = "(input x (f64 4))";
  for (int copy = 0; copy < 2; ++copy)
    for (int i = 0; i < k; ++i) {
      const std::string term =
          copy == 0 ? fmt::format("(exp (add x {}.5))", i) : fmt::format("(exp (add {}.5 x))", i);
      text += i == 0 ? fmt::format("(let s{}_{} {})", copy, i, term)
                     : fmt::format("(let s{0}_{1} (add s{0}_{2} {3}))", copy, i, i - 1, term);
    }
  return text + fmt::format("(output (add s0_{0} s1_{0}))", k - 1);
}

}  // namespace

TEST_CASE("a rule matching about once per e-node is not held back on a large graph") {
  // The backoff scheduler's match limit grows with the e-graph: banning
  // commutativity here would add iterations (whole-graph searches) with
  // each doubling of K.
  OptimizeReport small, large;
  optimize(graph(duplicated_sums(100)), shipped_rules(), &small);
  const ops::Graph out = optimize(graph(duplicated_sums(1600)), shipped_rules(), &large);
  CHECK(large.iterations == small.iterations);
  CHECK(rule(large, "add-comm").applications > 3000);
  // The two copies are one sum: half the cost.
  REQUIRE(out.outputs.size() == 1);
  CHECK(large.cost_after < large.cost_before / 1.9);
}

TEST_CASE("schedule steps run in order, each within its own iteration limit") {
  // Not laws: a chain that needs one iteration per step to reach cos.
  const RuleProgram p = rules_from(R"(
    (ruleset first) (ruleset second)
    (rewrite to-sin (exp ?x) (sin ?x) :ruleset first)
    (rewrite to-cos (sin ?x) (cos ?x) :ruleset first)
    (rewrite cos-to-tanh (cos ?x) (tanh ?x) :ruleset second)
    (schedule (run first :iter 1) (run second :iter 5)))");
  OptimizeReport report;
  optimize(graph("(input x (f64 3)) (output (exp x))"), p, &report);
  REQUIRE(report.phases.size() == 2);
  CHECK(report.phases[0].iterations == 1);
  CHECK(report.phases[0].stop_reason == egraph::StopReason::IterationLimit);
  CHECK(rule(report, "to-sin").applications == 1);
  CHECK(rule(report, "to-cos").applications == 0);       // needs a second iteration of `first`
  CHECK(rule(report, "cos-to-tanh").applications == 0);  // no cos yet when `second` runs
  CHECK(report.phases[1].stop_reason == egraph::StopReason::Saturated);
}

TEST_CASE("alpha-equivalent scans over the same inputs are one e-class after loading") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3))
    (input a (f64 3))
    (let s1 (scan :n-steps 4 :sit-sot (x0) :non-sequences (a) (fn (h w) (mul h w))))
    (let s2 (scan :n-steps 4 :sit-sot (x0) :non-sequences (a) (fn (state weight) (mul state weight))))
    (output (get 0 s1))
    (output (get 0 s2)))");
  TensorEGraph eg;
  const auto c1 = eg.add_term(g.outputs[0].term);
  const auto c2 = eg.add_term(g.outputs[1].term);
  CHECK(eg.egraph().find(c1) == eg.egraph().find(c2));
}

TEST_CASE("the analysis types classes and binds nominals inside bodies") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3))
    (input a (f64 3))
    (let s (scan :n-steps 4 :sit-sot (x0) :non-sequences (a) (fn (h w) (mul h (exp w)))))
    (output (get 0 s)))");
  TensorEGraph eg;
  const auto c = eg.add_term(g.outputs[0].term);
  eg.egraph().rebuild();
  CHECK(eg.type(c) == ops::Type{ops::TensorType{ops::DType::F64, {4, 3}}});
  CHECK(eg.data(c).free_nominals.empty());
  // Inside the body, exp(w) depends on nominal 1 only and is nonneg.
  bool found = false;
  for (auto cls : eg.egraph().classes())
    for (auto n : eg.egraph().nodes(cls))
      if (eg.kind(n) == ops::OpKind::Exp) {
        found = true;
        CHECK(eg.data(cls).free_nominals == std::vector<std::int64_t>{1});
        CHECK(eg.data(cls).nonneg);
      }
  CHECK(found);
}

TEST_CASE("the JSON report has the documented fields") {
  OptimizeReport report;
  optimize(graph("(input x (f64 ?)) (output (neg (neg x)))"), shipped_rules(), &report);
  const auto j = report.to_json();
  for (const char* key : {"iterations", "stop_reason", "enodes", "eclasses", "cost_before",
                          "cost_after", "seconds", "phases", "rules"})
    CHECK(j.contains(key));
  CHECK(j["rules"]["neg-neg"]["applications"].get<int>() >= 1);
  CHECK(j["cost_after"].get<double>() < j["cost_before"].get<double>());
}

TEST_CASE("scan rewrites drop unused non-sequences and move constants into bodies") {
  const std::string start = R"(
    (input x0 (f64 3))
    (input unused (f64 7))
    (let s (scan :n-steps 5 :sit-sot (x0) :non-sequences (unused 2.0)
             (fn (h u k) (mul h k))))
    (output (get 0 s)))";
  OptimizeReport report;
  const ops::Graph out = optimize(graph(start), shipped_rules(), &report);
  const ops::Graph goal = graph(R"(
    (input x0 (f64 3))
    (input unused (f64 7))
    (output (get 0 (scan :n-steps 5 :sit-sot (x0) (fn (h) (mul h 2.0))))))");
  INFO(ops::print_graph(out));
  CHECK(out.outputs[0].term == goal.outputs[0].term);
  CHECK(rule(report, "scan-remove-unused").applications >= 1);
  CHECK(rule(report, "scan-inline-constants").applications >= 1);
}

namespace {

// A rule file in a fresh temporary directory.
std::string write_rules(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "eqsat-test-user-rules";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

bool has_warning(const LoadedRules& r, const std::string& part) {
  return std::ranges::any_of(
      r.warnings, [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("user rules join the shipped ones in the user set, which the default schedule runs") {
  const std::string file = write_rules("double.rules", R"(
;; 2x = x + x, a user's rewrite without :ruleset
(rewrite double-to-add (mul ?x 2) (add ?x ?x)))");
  const LoadedRules loaded = load_rules({{file}, true, true});
  CHECK(loaded.warnings.empty());
  const Rewrite* r = loaded.program.find_rewrite("double-to-add");
  REQUIRE(r != nullptr);
  CHECK(r->ruleset == "user");
  CHECK(loaded.program.find_rewrite("log-softmax") != nullptr);  // the shipped rules are there
  OptimizeReport report;
  optimize(graph("(input x (f64 3)) (output (mul x 2))"), loaded.program, &report);
  CHECK(rule(report, "double-to-add").applications >= 1);
  // the shipped files named again (`--rules rules/*.rules --rules double.rules`)
  std::vector<std::string> again;
  for (const auto& entry : std::filesystem::directory_iterator(EQSAT_RULES_DIR))
    if (entry.path().extension() == ".rules") again.push_back(entry.path().string());
  std::ranges::sort(again);
  again.push_back(file);
  const LoadedRules both = load_rules({again, true, true});
  CHECK(both.program.find_rewrite("double-to-add")->ruleset == "user");
  CHECK(both.warnings.empty());
  const LoadedRules named = load_rules({again, false, true});
  CHECK(named.program.find_rewrite("double-to-add")->ruleset == "user");
  CHECK(named.warnings.empty());
  // --no-default-rules: the user's file alone, its rule in `default`
  const LoadedRules alone = load_rules({{file}, false, true});
  CHECK(alone.program.rewrites().size() == 1);
  CHECK(alone.program.rewrites()[0].ruleset == "default");
}

TEST_CASE("a user rule set that no schedule step runs is a warning") {
  const std::string file = write_rules("mine.rules", R"(
(ruleset mine)
;; x + x = 2x
(rewrite add-self (add ?x ?x) (mul ?x 2) :ruleset mine))");
  const LoadedRules loaded = load_rules({{file}, true, true});
  CHECK(has_warning(loaded, "rule set 'mine' is run by no schedule step"));
  // shipped sets outside the default schedule (fast-math) are not warned about
  CHECK_FALSE(has_warning(loaded, "fast-math"));
}

TEST_CASE("a user rule failing check-rules' quick check is a warning unless trusted") {
  const std::string file = write_rules("bad.rules", R"(
;; x + 1 = x (wrong)
(rewrite add-one-wrong (add ?x 1) ?x))");
  const LoadedRules checked = load_rules({{file}, true, true});
  CHECK(has_warning(checked, "rule add-one-wrong fails check-rules' numeric check"));
  CHECK(has_warning(checked, "bad.rules:3:1: warning:"));
  const LoadedRules trusted = load_rules({{file}, true, false});
  CHECK(trusted.warnings.empty());
}

TEST_CASE("a rewrite that drops an operand which may fail is refused") {
  // x + zeros_like(y) = x where y broadcasts to x: sound where y cannot fail.
  const std::string file = write_rules("drop.rules", R"(
;; x + zeros_like(y) = x
(rewrite add-zeros-like (add ?x (zeros_like ?y)) ?x :when ((broadcasts-to ?y ?x))))");
  const LoadedRules loaded = load_rules({{file}, true, false});
  // The max fails for 0 columns; the class of the sum "may fail" too (the
  // product's shapes are not all static): the dropped max is what decides.
  OptimizeReport report;
  const ops::Graph kept = optimize(graph(R"((input q (f32 ? 16)) (input k (f32 ? 16))
    (let s (dot q (transpose k)))
    (output (add (softmax s :axis 1) (zeros_like (max s :axis (1) :keepdims true)))))"),
                                   loaded.program, &report);
  CHECK(testing::contains(kept.outputs[0].term, ops::OpKind::Max));
  CHECK(rule(report, "add-zeros-like").refused >= 1);
  // A dropped operand that cannot fail goes.
  const ops::Graph dropped =
      optimize(graph("(input x (f32 ? 3)) (output (add (exp x) (zeros_like (sum x :axis (0)))))"),
               loaded.program);
  CHECK_FALSE(testing::contains(dropped.outputs[0].term, ops::OpKind::Sum));
}

TEST_CASE("constants fold through reductions, dot and indexing") {
  check_optimizes(shipped_rules(),
                  "(input x (f64 2)) (output (add x (sum (const (f64 2 2) (1 2 3 4)) :axis (0))))",
                  "(input x (f64 2)) (output (add x (const (f64 2) (4 6))))");
  check_optimizes(
      shipped_rules(),
      "(input x (f64 2)) (output (add x (dot (const (f64 2 2) (1 2 3 4)) (const (f64 2) (1 1)))))",
      "(input x (f64 2)) (output (add x (const (f64 2) (3 7))))");
  check_optimizes(shipped_rules(),
                  "(input x (f64 2)) (output (add x (index (const (f64 2 2) (1 2 3 4)) -1)))",
                  "(input x (f64 2)) (output (add x (const (f64 2) (3 4))))");
}

TEST_CASE(":comm matches commuted operands and reports under the rule's name") {
  const RuleProgram p = rules_from(R"(
    (rewrite plus-one (log (add ?x 1)) (log1p ?x) :comm)
    (rewrite plain (log (sub ?x 1)) (log1p (neg ?x))))");
  REQUIRE(p.rewrites()[0].commutative);
  CHECK_FALSE(p.rewrites()[1].commutative);
  OptimizeReport report;
  check_optimizes(p, "(input x (f64 3)) (output (log (add 1 x))) (output (log (add x 1)))",
                  "(input x (f64 3)) (output (log1p x)) (output (log1p x))", &report);
  CHECK(rule(report, "plus-one").applications == 2);
  for (const auto& r : report.rules) CHECK(r.name.find('#') == std::string::npos);
  // without :comm only the written order matches
  check_optimizes(p, "(input x (f64 3)) (output (log (sub 1 x)))",
                  "(input x (f64 3)) (output (log (sub 1 x)))");
}

TEST_CASE("a rule whose root operator appears only when another rule fires still applies") {
  // Rules are lowered when their root operator first appears in the
  // e-graph: log1p is not in the graph until to-log1p adds it.
  const RuleProgram p = rules_from(R"(
    (rewrite to-log1p (log (add ?x 1)) (log1p ?x))
    (rewrite log1p-of-neg (log1p (neg ?x)) (log (sub 1 ?x))))");
  OptimizeReport report;
  optimize(graph("(input x (f64 3)) (output (log (add (neg x) 1)))"), p, &report);
  CHECK(rule(report, "to-log1p").applications == 1);
  CHECK(rule(report, "log1p-of-neg").applications == 1);
}
