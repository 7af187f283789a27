// The rule parser and checker: the AST it builds, and every kind of bad
// rule reported with its exact message (tests/rules/fail/*.rules).
#include "rules/lang/rule_parser.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::rules::ast;

namespace {

RuleProgram parse(const std::string& text, std::vector<std::string> appliers = {}) {
  const RuleSource source{"t.rules", text};
  return parse_rules(std::span(&source, 1), appliers);
}

// The message of the DiagnosticError `text` raises, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ops::DiagnosticError& e) {
    return e.what();
  }
  return "";
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("(ruleset NAME :default true) names the set of the file's later rules once") {
  const RuleProgram p = parse(R"(
    (rewrite before (neg (neg ?x)) ?x)
    (ruleset algebra :default true)
    (rewrite add-zero (add ?x 0) ?x :comm true)
    (rewrite mul-one (mul ?x 1) ?x :comm false :ruleset default)
    (use shape-identities)
  )",
                              {"shape-identities"});
  CHECK(p.find_rewrite("before")->ruleset == "default");
  CHECK(p.find_rewrite("add-zero")->ruleset == "algebra");
  CHECK(p.find_rewrite("add-zero")->commutative);
  CHECK(p.find_rewrite("mul-one")->ruleset == "default");
  CHECK_FALSE(p.find_rewrite("mul-one")->commutative);
  REQUIRE(p.uses().size() == 1);
  CHECK(p.uses()[0].ruleset == "algebra");
}

TEST_CASE("a rewrite becomes a checked pattern pair in its rule set") {
  const RuleProgram p = parse(R"(
    (ruleset algebra)
    ;; x + 0 = x
    (rewrite add-zero (add ?x 0) ?x :ruleset algebra)
    (rewrite log-softmax (log (softmax ?x :axis ?ax)) (log_softmax ?x :axis ?ax))
    (rewrite div-self (div ?x ?x) (ones_like ?x) :when ((nonzero ?x) (ndim ?x 2)))
    (birewrite mul-comm (mul ?a ?b) (mul ?b ?a) :ruleset algebra)
  )");
  REQUIRE(p.rewrites().size() == 4);
  const Rewrite& add_zero = p.rewrites()[0];
  CHECK(add_zero.name == "add-zero");
  CHECK(add_zero.ruleset == "algebra");
  CHECK(add_zero.where == ops::SourceLocation{"t.rules", 4, 5});
  REQUIRE(add_zero.lhs.is_op());
  CHECK(add_zero.lhs.op == ops::OpKind::Add);
  REQUIRE(add_zero.lhs.children.size() == 2);
  CHECK(add_zero.lhs.children[1].kind == Pattern::Kind::Number);
  CHECK(add_zero.lhs.children[1].number == 0);
  CHECK(add_zero.rhs.kind == Pattern::Kind::Var);

  const Rewrite& ls = *p.find_rewrite("log-softmax");
  CHECK(ls.ruleset == "default");
  REQUIRE(ls.rhs.attrs.size() == 1);
  CHECK(ls.rhs.attrs[0].key == ops::AttrKey::Axis);
  CHECK(ls.rhs.attrs[0].var == "?ax");
  CHECK(to_string(ls.lhs) == "(log (softmax ?x :axis ?ax))");

  const Rewrite& ds = *p.find_rewrite("div-self");
  REQUIRE(ds.conditions.size() == 2);
  CHECK(ds.conditions[0].predicate == Predicate::Nonzero);
  CHECK(ds.conditions[1].predicate == Predicate::Ndim);
  CHECK(ds.conditions[1].args[1].int_value == 2);
  CHECK(p.find_rewrite("mul-comm")->bidirectional);
  CHECK(p.has_ruleset("algebra"));
  CHECK(p.has_ruleset("default"));
}

TEST_CASE("literal attributes, get indices and numbers print back as written") {
  const RuleProgram p = parse(R"(
    (rewrite r1 (sum (exp ?x) :axis (0 1) :keepdims true) (get 1 (cast ?x :dtype f32)))
    (rewrite r2 (mul ?x 2.0) (add ?x ?x))
    (rewrite r3 (where true ?a ?b) ?a)
  )");
  CHECK(to_string(p.rewrites()[0].lhs) == "(sum (exp ?x) :axis (0 1) :keepdims true)");
  CHECK(to_string(p.rewrites()[0].rhs) == "(get 1 (cast ?x :dtype f32))");
  CHECK(to_string(p.rewrites()[1].lhs) == "(mul ?x 2.0)");
  CHECK(p.rewrites()[1].lhs.children[1].is_float);
  CHECK(p.rewrites()[2].lhs.children[0].kind == Pattern::Kind::Bool);
}

TEST_CASE("nan inf and -inf are float numbers in patterns") {
  const RuleProgram p = parse(
      "(rewrite r (exp (log ?x)) (where (ge ?x 0) ?x nan))"
      "(rewrite s (div 1 ?x) (where (ne ?x 0) (reciprocal ?x) inf))"
      "(rewrite t (neg (exp ?x)) (where (ge ?x -inf) (neg (exp ?x)) -inf))");
  REQUIRE(p.rewrites().size() == 3);
  const Pattern& nan = p.rewrites()[0].rhs.children[2];
  CHECK(nan.kind == Pattern::Kind::Number);
  CHECK(nan.is_float);
  CHECK(std::isnan(nan.number));
  CHECK(p.rewrites()[1].rhs.children[2].number == std::numeric_limits<double>::infinity());
  CHECK(p.rewrites()[2].rhs.children[2].number == -std::numeric_limits<double>::infinity());
  CHECK(error_of("(rewrite r (exp ?x) (add ?x nan0))").find("unexpected symbol 'nan0'") !=
        std::string::npos);
}

TEST_CASE("the schedule keeps its steps, rule sets and limits - defaults fill the rest") {
  const RuleProgram p = parse(R"(
    (ruleset canonicalize) (ruleset algebra)
    (schedule (run canonicalize :iter 8)
              (saturate algebra canonicalize :nodes 5000 :time 0.5))
  )");
  const auto& steps = p.schedule().steps;
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].kind == ScheduleStep::Kind::Run);
  CHECK(steps[0].rulesets == std::vector<std::string>{"canonicalize"});
  CHECK(steps[0].limits.iterations == 8);
  CHECK(steps[0].limits.nodes == kDefaultNodeLimit);
  CHECK(steps[1].kind == ScheduleStep::Kind::Saturate);
  CHECK(steps[1].rulesets == std::vector<std::string>{"algebra", "canonicalize"});
  CHECK(steps[1].limits.iterations == kDefaultSaturateIterations);
  CHECK(steps[1].limits.nodes == 5000);
  CHECK(steps[1].limits.seconds == 0.5);
}

TEST_CASE("without a schedule, every rule set saturates together") {
  const RuleProgram p = parse("(ruleset a) (rewrite r (neg (neg ?x)) ?x :ruleset a)");
  REQUIRE(p.schedule().steps.size() == 1);
  CHECK(p.schedule().steps[0].kind == ScheduleStep::Kind::Saturate);
  CHECK(p.schedule().steps[0].rulesets == std::vector<std::string>{"default", "a"});
}

TEST_CASE("use switches on a known applier in a rule set") {
  const RuleProgram p =
      parse("(ruleset scan) (use scan-remove-unused :ruleset scan)", {"scan-remove-unused"});
  REQUIRE(p.uses().size() == 1);
  CHECK(p.uses()[0].applier == "scan-remove-unused");
  CHECK(p.uses()[0].ruleset == "scan");
}

TEST_CASE("rule sets may be declared in one file and used in another") {
  const std::vector<RuleSource> sources = {
      {"a.rules", "(rewrite r (neg (neg ?x)) ?x :ruleset s)"},
      {"b.rules", "(ruleset s)"},
  };
  CHECK(parse_rules(sources).find_rewrite("r")->ruleset == "s");
}

TEST_CASE("every bad rule in tests/rules/fail reports its expected error") {
  const std::filesystem::path dir = std::filesystem::path(EQSAT_TESTS_DIR) / "fail";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".rules") files.push_back(entry.path());
  std::ranges::sort(files);
  REQUIRE(files.size() >= 30);
  for (const auto& path : files) {
    const std::string text = read_text(path);
    const std::string first_line = text.substr(0, text.find('\n'));
    const std::string prefix = "; expect: ";
    INFO(path.filename().string());
    REQUIRE(first_line.rfind(prefix, 0) == 0);
    const std::string expected = path.filename().string() + ":" + first_line.substr(prefix.size());
    const RuleSource source{path.filename().string(), text};
    std::string actual;
    try {
      parse_rules(std::span(&source, 1));
    } catch (const ops::DiagnosticError& e) {
      actual = e.what();
    }
    CHECK(actual == expected);
  }
}

TEST_CASE("a file with several errors reports all of them, in file order") {
  const std::string message = error_of(R"((rewrite a (frob ?x) ?x)
(rewrite b (add ?x) ?x)
(rewrite c (mul ?x 0) ?y :when ((bogus ?x)))
(rewrite a (neg (neg ?x)) ?x)
(rewrite d (neg ?x) ?x :ruleset nowhere)
(schedule (run :iter 0)))");
  CHECK(message ==
        "t.rules:1:13: error: unknown op 'frob'\n"
        "t.rules:2:12: error: add takes 2 operands, got 1\n"
        "t.rules:3:23: error: variable ?y of the right side is not bound by the left side\n"
        "t.rules:3:34: error: unknown predicate 'bogus'\n"
        "t.rules:4:10: error: duplicate rule name 'a' (first defined at t.rules:1:1)\n"
        "t.rules:5:33: error: unknown rule set 'nowhere'\n"
        "t.rules:6:11: error: malformed schedule: run names no rule set\n"
        "t.rules:6:22: error: malformed schedule: :iter needs a positive integer");
}

TEST_CASE("errors in several files are reported together") {
  const std::vector<RuleSource> sources = {{"a.rules", "(rewrite r (frob ?x) ?x)"},
                                           {"b.rules", "(rewrite s (neg ?x) ?y)"}};
  try {
    parse_rules(sources);
    FAIL("expected errors");
  } catch (const ops::DiagnosticError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK(e.diagnostics()[0].where.file == "a.rules");
    CHECK(e.diagnostics()[1].where.file == "b.rules");
  }
}
