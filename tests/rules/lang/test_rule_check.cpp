// The numerical rule checker: it finds counter-examples to wrong rules and
// to laws that ignore ∞ and NaN, and every shipped rule outside fast-math
// is tested by it and passes.
#include "rules/pipeline/optimize.hpp"
#include "rules/lang/rule_check.hpp"
#include "rules/lang/rule_parser.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::rules::ast;

namespace {

RuleProgram rules_from(const std::string& text) {
  const RuleSource s{"t.rules", text};
  return parse_rules(std::span(&s, 1));
}

}  // namespace

TEST_CASE("a wrong rule is unsound, with a counter-example") {
  const RuleProgram p = rules_from("(rewrite sub-comm (sub ?x ?y) (sub ?y ?x))");
  const RuleVerdict v = check_rule(p.rewrites()[0], {.seed = 7, .attempts = 200});
  CHECK(v.kind == RuleVerdict::Kind::Unsound);
  CHECK_THAT(v.counterexample, Catch::Contains("?x = ") && Catch::Contains("gives"));
}

TEST_CASE("a guard makes a rule sound - without it, IEEE specials break it") {
  const RuleProgram p = rules_from(R"(
    (rewrite guarded (mul ?x 0) (zeros_like ?x) :when ((finite ?x)))
    (rewrite unguarded (mul ?x 0) (zeros_like ?x)))");
  CHECK(check_rule(p.rewrites()[0], {.seed = 3, .attempts = 300}).kind == RuleVerdict::Kind::Sound);
  CHECK(check_rule(p.rewrites()[1], {.seed = 3, .attempts = 300}).kind ==
        RuleVerdict::Kind::Unsound);
}

TEST_CASE("operands meet the rank and dtype conditions so that typed rules are tested") {
  // A one-hot vector times a matrix: four operands whose shapes and dtypes
  // must fit together, drawn independently almost never.
  const RuleProgram p = rules_from(R"(
    (rewrite row (dot (inc_index ?z ?i ?s) ?b) (mul ?s (index ?b ?i))
      :when ((zero ?z) (float ?z) (ndim ?z 1) (scalar ?i) (integer ?i) (scalar ?s) (ndim ?b 2))
      :domain finite)
    (rewrite first-row (dot (inc_index ?z ?i ?s) ?b) (mul ?s (index ?b 0))
      :when ((zero ?z) (float ?z) (ndim ?z 1) (scalar ?i) (integer ?i) (scalar ?s) (ndim ?b 2))
      :domain finite)
    (rewrite f32-only (exp ?x) (exp ?x) :when ((dtype ?x f32) (ndim ?x 3))))");
  const RuleVerdict row = check_rule(p.rewrites()[0], {.seed = 5, .attempts = 300});
  CHECK(row.kind == RuleVerdict::Kind::Sound);
  CHECK(row.instances >= 5);
  CHECK(check_rule(p.rewrites()[1], {.seed = 5, .attempts = 300}).kind ==
        RuleVerdict::Kind::Unsound);
  CHECK(check_rule(p.rewrites()[2], {.seed = 5, .attempts = 50}).instances >= 25);
}

TEST_CASE("every shipped rule outside fast-math passes the checker") {
  const RuleProgram p = load_default_rules();
  std::size_t sound = 0;
  for (const Rewrite& r : p.rewrites()) {
    if (r.ruleset == "fast-math") continue;
    const RuleVerdict v = check_rule(r);  // what `eqsat check-rules` does
    INFO(r.name << ": " << v.counterexample);
    CHECK(v.kind == RuleVerdict::Kind::Sound);  // neither unsound nor untested
    sound += v.kind == RuleVerdict::Kind::Sound;
  }
  CHECK(sound >= 100);
}
