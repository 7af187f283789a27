// Rule lowering: a rule's left side searched in a tensor e-graph, its
// conditions and right side applied through the e-graph's rewrites.
#include "rules/lang/rule_lowering.hpp"

#include "rules/lang/rule_parser.hpp"

#include "tests/support/load_outputs.hpp"

#include "egraph/runner.hpp"
#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <stdexcept>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

// Integer re-association, guarded as the shipped rule is, and one rule
// with no dtype condition.
constexpr const char* kRules = R"(
(rewrite assoc-int (add (add ?x ?y) ?z) (add ?x (add ?y ?z))
  :when ((integer ?x) (same-dtype ?x ?y) (same-dtype ?y ?z)))
(rewrite assoc-f32 (add (add ?x ?y) ?z) (add ?x (add ?y ?z)) :when ((dtype ?x f32)))
(rewrite comm (add ?x ?y) (add ?y ?x))
)";

RuleProgram program() {
  const RuleSource source{"t.rules", kRules};
  return parse_rules(std::span(&source, 1));
}

// The graph's outputs in a fresh e-graph, and kRules lowered for it.
struct Loaded {
  TensorEGraph g;
  RuleProgram rules = program();
  std::optional<LoweredRules> lowered;

  explicit Loaded(const std::string& text) {
    testing::load_outputs(g, text);
    lowered.emplace(rules, g);
  }

  const egraph::Rewrite& rewrite(const std::string& name) const {
    for (std::size_t i = 0; i < lowered->rewrites().size(); ++i)
      if (lowered->rule_name(i) == name) return lowered->rewrites()[i];
    throw std::invalid_argument("no rule " + name);
  }

  // The matches the searcher of rule `name` gives, before its conditions.
  std::size_t searched(const std::string& name) {
    egraph::Matches m;
    rewrite(name).searcher().search(g.egraph(), m, 1000);
    return m.size();
  }
};

}  // namespace

TEST_CASE("a rule whose condition needs a dtype the e-graph never made is not searched") {
  Loaded floats("(input x (f64 3)) (output (add (add x 1.0) 2.0))");
  // The left side is there (comm finds both adds), but no class is an
  // integer or f32: the guarded rules give nothing to check.
  CHECK(floats.searched("comm") == 2);
  CHECK(floats.searched("assoc-int") == 0);
  CHECK(floats.searched("assoc-f32") == 0);
}

TEST_CASE("a rule whose condition's dtype is present is searched and applies") {
  Loaded ints("(input n (i64 3)) (input x (f64 3)) (output (add (add n 1) 2)) (output x)");
  CHECK(ints.searched("assoc-int") == 1);
  CHECK(ints.searched("assoc-f32") == 0);
  // With an f32 class present the f32 rule is searched: its match, the sum
  // of i32s, is then refused by its condition, not by the skip.
  Loaded mixed("(input a (f32 3)) (input n (i32 3)) (output (add (add n 2) 3)) (output a)");
  CHECK(mixed.searched("assoc-f32") == 1);

  // Applied: n + (1 + 2) joins the class of (n + 1) + 2.
  egraph::Runner runner(ints.g.egraph(), egraph::RunnerConfig{.iter_limit = 1});
  runner.run({&ints.rewrite("assoc-int")});
  const ops::Graph want = ops::parse_graph(
      "(input n (i64 3)) (output (add (add n 1) 2)) (output (add n (add 1 2)))", "w.eg", ".");
  const egraph::EClassId a = ints.g.add_term(want.outputs[0].term);
  const egraph::EClassId b = ints.g.add_term(want.outputs[1].term);
  ints.g.egraph().rebuild();
  CHECK(ints.g.egraph().find(a) == ints.g.egraph().find(b));
}
