// `--validate`'s gradient check (rules/pipeline/validate_gradients.hpp):
// an output `(grad COST WRT)` is compared with central finite differences
// of the written COST at smooth points; a wrong rule that changes only a
// derivative is refused naming the output; input sets holding ±∞ or NaN
// and kinks are skipped, other outputs holding a grad are named unchecked.
#include "rules/pipeline/validate_gradients.hpp"

#include "rules/pipeline/validate.hpp"

#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "tests/support/check_optimizes.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace eqsat;

namespace {

ops::Graph parse(const std::string& text) {
  return ops::parse_graph(text, "g.eg", ".");
}

// The shipped rules plus `user_rules`, trusted (no quick numeric check).
rules::RuleProgram rules_with(const std::string& user_rules) {
  const auto path = std::filesystem::temp_directory_path() / "eqsat-test-validate-gradients.rules";
  std::ofstream(path) << user_rules;
  rules::RuleProgram p = rules::load_rules({{path.string()}, true, false}).program;
  std::filesystem::remove(path);
  return p;
}

rules::ValidationResult validate(const ops::Graph& g, const rules::RuleProgram& rules,
                                 rules::ValidateOptions v) {
  const ops::Graph best = rules::optimize(g, rules);
  INFO("optimized:\n" << ops::print_graph(best));
  return rules::validate_optimization(g, best, rules, {}, v);
}

}  // namespace

TEST_CASE("validate gradients: sound gradients agree with finite differences") {
  const rules::RuleProgram& rules = testing::shipped_rules();
  for (const char* text : {
           "(input x (f64 3)) (input y (f64 3)) (output g (grad (sum (mul (tanh x) y)) x))",
           "(input x (f64 ? 2)) (output g (grad (logsumexp (mul x x)) x)) (output (exp x))",
           "(input x (f32 4)) (output g (grad (sum (sigmoid (mul x 3.0))) x))",
           "(input x (f64 3)) (output g (grad (sum (get 0 (scan :n-steps 3 :sit-sot (x)"
           " (fn (h) (sin (mul h 1.5)))))) x))",
       }) {
    INFO(text);
    const rules::ValidationResult r = validate(parse(text), rules, {.input_sets = 6});
    if (r.mismatch) FAIL_CHECK(rules::to_string(*r.mismatch, "g.eg"));
    CHECK(r.gradients == std::vector<std::string>{"g"});
    CHECK(r.gradient_sets >= 1);  // set 1 is ordinary: no ±∞ or NaN
    CHECK(r.gradient_sets + r.gradient_sets_skipped == 6);
    CHECK(r.unchecked.empty());
  }
}

TEST_CASE("validate gradients: a wrong rule that changes only a derivative is refused") {
  // tanh's pullback is g·(1 − tanh²x): the rule rewrites that form only.
  const auto r =
      validate(parse("(input x (f64 3)) (output y (tanh x)) (output g (grad (sum (tanh x)) x))"),
               rules_with("(rewrite tanh-wrong (sub 1.0 (square (tanh ?x))) (sub 1.0 (tanh ?x)))"),
               {.input_sets = 3});
  REQUIRE(r.mismatch);
  const std::string text = rules::to_string(*r.mismatch, "g.eg");
  CHECK(r.mismatch->output == "g");
  CHECK_THAT(text, Catch::StartsWith("g.eg: error: --validate: output g differs on input set 1"));
  CHECK_THAT(text, Catch::Contains("finite differences of the written cost give"));
  CHECK_THAT(text, Catch::Contains("tanh-wrong"));
  // A rule on (mul ?x ?x) reaching a grad.
  const auto sq =
      validate(parse("(input x (f64 3)) (output dx (grad (sum (mul x x)) x))"),
               rules_with("(rewrite mul-self-wrong (mul ?x ?x) (mul ?x 2.0))"), {.input_sets = 3});
  REQUIRE(sq.mismatch);
  CHECK(sq.mismatch->output == "dx");
}

TEST_CASE("validate gradients: sets holding inf or NaN and kinks are skipped") {
  const rules::RuleProgram& rules = testing::shipped_rules();
  const ops::Graph g = parse("(input x (f64 3)) (output g (grad (sum (maximum x 0.0)) x))");
  ops::Array at(ops::DType::F64, {3});
  at.data<double>()[0] = 0.0;  // the kink: forward 1, backward 0
  at.data<double>()[1] = 1.5;
  at.data<double>()[2] = -1.5;
  auto r = validate(g, rules, {.input_sets = 2, .fixed = {at}});
  if (r.mismatch) FAIL_CHECK(rules::to_string(*r.mismatch, "g.eg"));
  CHECK(r.gradient_sets == 1);  // one set: the input is fixed
  at.data<double>()[1] = std::numeric_limits<double>::quiet_NaN();
  r = validate(g, rules, {.input_sets = 2, .fixed = {at}});
  CHECK_FALSE(r.mismatch);
  CHECK(r.gradient_sets == 0);
  CHECK(r.gradient_sets_skipped == 1);
  CHECK_THAT(rules::summary(r), Catch::Contains("(1 skipped: they hold ±∞ or NaN)"));
}

TEST_CASE("validate gradients: an output that is not a whole grad is not compared") {
  const auto r = validate(parse("(input x (f64 3)) (output y (mul 2.0 (grad (sum (sin x)) x)))"),
                          testing::shipped_rules(), {.input_sets = 2});
  CHECK_FALSE(r.mismatch);
  CHECK(r.gradients.empty());
  CHECK(r.unchecked == std::vector<std::string>{"y"});
  CHECK(r.input_sets == 0);
  CHECK_THAT(rules::summary(r), Catch::Contains("nothing compared"));
}
