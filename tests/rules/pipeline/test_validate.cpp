// `--validate`'s check (rules/pipeline/validate.hpp): sound optimizations
// pass (stabilizations at overflowing inputs included), an unsound user rule
// is refused naming the output, the input set and the rule on the path; a
// written run-time error must stay an error and an optimized one is a
// difference; a changed output agrees within the documented tolerance only.
#include "rules/pipeline/validate.hpp"

#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "tests/support/check_optimizes.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace eqsat;

namespace {

ops::Graph parse(const std::string& text) {
  return ops::parse_graph(text, "g.eg", ".");
}

// The shipped rules plus `user_rules`, trusted (no quick numeric check).
rules::RuleProgram rules_with(const std::string& user_rules) {
  const auto path = std::filesystem::temp_directory_path() / "eqsat-test-validate-user.rules";
  std::ofstream(path) << user_rules;
  rules::RuleProgram p = rules::load_rules({{path.string()}, true, false}).program;
  std::filesystem::remove(path);
  return p;
}

rules::ValidationResult optimize_and_validate(const ops::Graph& g, const rules::RuleProgram& rules,
                                              std::size_t sets = 3) {
  const ops::Graph best = rules::optimize(g, rules);
  INFO("optimized:\n" << ops::print_graph(best));
  return rules::validate_optimization(g, best, rules, {}, {.input_sets = sets});
}

}  // namespace

TEST_CASE("validate: sound optimizations pass, stabilizations at overflow included") {
  const rules::RuleProgram& rules = testing::shipped_rules();
  for (const char* text : {
           "(input x (f64 ? 4)) (output y (log (sum (exp x) :axis (1))))",
           "(input x (f64 3)) (input y (f64 3)) (output (mul (add x 0.0) (sub y y)))",
           "(input x (f32 ?)) (output (log (add 1.0 (exp x)))) (output (sigmoid (neg x)))",
           "(input a (f64 2 3)) (input b (f64 3 4)) (input c (f64 4 1))"
           " (output (dot (dot a b) c))",
       }) {
    INFO(text);
    const rules::ValidationResult r = optimize_and_validate(parse(text), rules, 6);
    CHECK(r.input_sets == 6);
    if (r.mismatch) FAIL_CHECK(rules::to_string(*r.mismatch, "g.eg"));
  }
}

TEST_CASE("validate: an unsound user rule is refused naming the output, the set and the rule") {
  const rules::RuleProgram rules = rules_with("(rewrite exp-wrong (exp ?x) (add ?x 1.0))");
  const ops::Graph g = parse("(input x (f64 3)) (output y (mul (exp x) 2.0))");
  const rules::ValidationResult r = optimize_and_validate(g, rules);
  REQUIRE(r.mismatch);
  CHECK(r.mismatch->output == "y");
  CHECK(r.mismatch->input_set == 1);
  CHECK(r.mismatch->rules == std::vector<std::string>{"exp-wrong"});
  const std::string text = rules::to_string(*r.mismatch, "g.eg");
  CHECK(
      text.starts_with("g.eg: error: --validate: output y differs on input set 1 of 3\n"
                       "  element 0: written "));
  CHECK(text.find("input set 1: x = (f64 3) [") != std::string::npos);
  CHECK(text.find("rules on the path from the written output to the optimized one: exp-wrong\n") !=
        std::string::npos);
}

TEST_CASE("validate: a written run-time error must stay an error, per output") {
  const rules::RuleProgram& rules = testing::shipped_rules();
  // The written index fails on every set (3 rows); the "optimized" one
  // returns a value: a difference, while the other output is compared.
  const ops::Graph written =
      parse("(input x (f64 3)) (output ok (neg x)) (output bad (index x 5))");
  ops::Graph wrong = written;
  wrong.outputs[1].term = parse("(input x (f64 3)) (output (index x 0))").outputs[0].term;
  rules::ValidationResult r = rules::validate_optimization(written, wrong, rules, {}, {});
  CHECK(r.written_fails == 1);
  REQUIRE(r.mismatch);
  CHECK(r.mismatch->output == "bad");
  CHECK_THAT(r.mismatch->difference,
             Catch::StartsWith("the written output fails (g.eg:1:51: error: index: "));
  CHECK(r.mismatch->difference.ends_with("the optimized one gives a value"));
  // Failing on every set as written and as optimized: agreed, each set counted.
  r = rules::validate_optimization(written, written, rules, {}, {});
  CHECK_FALSE(r.mismatch);
  CHECK(r.written_fails == 3);
  CHECK(rules::summary(r) ==
        "--validate: the written and the optimized graph agree on 3 input sets (3 on which the "
        "written graph fails, checked output by output)");
}

TEST_CASE("validate: an optimized output failing where the written one runs is a difference") {
  const rules::RuleProgram& rules = testing::shipped_rules();
  const ops::Graph written = parse("(input x (f64 3)) (output y (index x 1))");
  ops::Graph wrong = written;
  wrong.outputs[0].term = parse("(input x (f64 3)) (output (index x 4))").outputs[0].term;
  const rules::ValidationResult r = rules::validate_optimization(written, wrong, rules, {}, {});
  REQUIRE(r.mismatch);
  CHECK(r.mismatch->output == "y");
  CHECK_THAT(r.mismatch->difference,
             Catch::StartsWith("the optimized output fails where the written one runs: "
                               "index: index 4 is out of range"));
}

TEST_CASE("validate: a changed output agrees within the tolerance, not beyond") {
  const rules::RuleProgram& rules = testing::shipped_rules();
  const ops::Graph written = parse("(input x (f64 4)) (output y (mul x 1.0))");
  auto as = [&](const char* expr) {
    ops::Graph g = written;
    g.outputs[0].term =
        parse(std::string("(input x (f64 4)) (output ") + expr + ")").outputs[0].term;
    return rules::validate_optimization(written, g, rules, {}, {.input_sets = 1});
  };
  CHECK_FALSE(as("(mul x (add 1.0 1e-9))").mismatch);
  const auto r = as("(mul x (add 1.0 1e-5))");
  REQUIRE(r.mismatch);
  CHECK(r.mismatch->difference.starts_with("element 0: written "));
  // The same term, the same values: nothing to explain.
  CHECK_FALSE(rules::validate_optimization(written, written, rules, {}, {}).mismatch);
}

TEST_CASE("validate: a graph without inputs is run once") {
  const ops::Graph g = parse("(output (exp (const (f64 2) (0 1))))");
  const rules::ValidationResult r =
      rules::validate_optimization(g, rules::optimize(g, testing::shipped_rules()),
                                   testing::shipped_rules(), {}, {.input_sets = 5});
  CHECK(r.input_sets == 1);
  CHECK_FALSE(r.mismatch);
}

TEST_CASE("validate: a stabilization may turn an overflow into a value, never a domain error") {
  // Softmax spelled out overflows to ∞/∞ = NaN at 1000; the stable form is
  // finite there: allowed.
  // log(softmax x) is ∞ − ∞ = NaN on a row holding +∞, log_softmax x the
  // limit −∞ at its finite elements: allowed. log1p(expm1 x) is −∞ as
  // written where expm1 rounds to −1, x itself optimized.
  for (const char* text :
       {"(input x (f64 ? 3)) (output s (div (exp x) (sum (exp x) :axis (1) :keepdims true)))",
        "(input x (f64 4 3)) (output (log (softmax x :axis 1)))",
        "(input x (f64 6)) (output (log1p (expm1 x)))"}) {
    INFO(text);
    const rules::ValidationResult ok =
        optimize_and_validate(parse(text), testing::shipped_rules(), 25);
    CHECK(ok.mismatch == std::nullopt);
    if (ok.mismatch) FAIL_CHECK(rules::to_string(*ok.mismatch, "g.eg"));
  }
  // A "stabilization" that drops √'s domain: √x² at x < 0 is NaN as written.
  const rules::RuleProgram rules =
      rules_with("(rewrite square-sqrt-wrong (square (sqrt ?x)) ?x :ruleset stabilize)");
  const rules::ValidationResult r =
      optimize_and_validate(parse("(input x (f64 4)) (output y (square (sqrt x)))"), rules);
  REQUIRE(r.mismatch);
  CHECK(r.mismatch->rules == std::vector<std::string>{"square-sqrt-wrong"});
  CHECK_THAT(r.mismatch->difference, Catch::Contains("nan, optimized -"));
}

TEST_CASE("validate: an error in work no output reads may go, one the output reads must stay") {
  const rules::RuleProgram& rules = testing::shipped_rules();
  auto term = [](const std::string& text) { return parse(text).outputs[0].term; };
  // A loop input the body never uses fails: removing it is allowed.
  const ops::Graph unread = parse(
      "(input x (f64 3)) (output y (get 0 (scan :n-steps 2 :sit-sot (0.0) :non-sequences "
      "((index x 5)) (fn (h w) (add h 1.0)))))");
  ops::Graph removed = unread;
  removed.outputs[0].term =
      term("(output (get 0 (scan :n-steps 2 :sit-sot (0.0) (fn (h) (add h 1.0)))))");
  CHECK(rules::validate_optimization(unread, removed, rules, {}, {}).mismatch == std::nullopt);
  // The output reads the failing index (its shape): the error must stay.
  const ops::Graph read = parse("(input x (f64 3 2)) (output y (dim (index x 5) :axis 0))");
  ops::Graph folded = read;
  folded.outputs[0].term = ops::Term::scalar(ops::DType::I64, 2);
  const auto r = rules::validate_optimization(read, folded, rules, {}, {});
  REQUIRE(r.mismatch);
  CHECK_THAT(r.mismatch->difference, Catch::StartsWith("the written output fails ("));
  // A loop's own error (more steps than its sequence has rows) must stay.
  const ops::Graph steps = parse(
      "(input x (f64 3)) (output y (get 0 (scan :n-steps 5 :sequences (x) :sit-sot (0.0) "
      "(fn (t h) (add h t)))))");
  ops::Graph fewer = steps;
  fewer.outputs[0].term = term(
      "(input x (f64 3)) (output (get 0 (scan :n-steps 3 :sequences (x) :sit-sot (0.0) (fn (t "
      "h) (add h t)))))");
  CHECK(rules::validate_optimization(steps, fewer, rules, {}, {}).mismatch.has_value());
}
