// Limits of a schedule step on an exploding rule set (issue 5):
// commutativity and associativity over a long sum grow the e-graph
// exponentially, yet each `saturate` step stops at its node, time or
// iteration limit, the extracted graph still computes the same values, and
// a node-limited run gives the same optimized graph twice.
#include "rules/pipeline/optimize.hpp"
#include "rules/lang/rule_parser.hpp"

#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

RuleProgram exploding(const std::string& limits) {
  const RuleSource s{"explode.rules", R"(
    (rewrite comm (add ?x ?y) (add ?y ?x))
    (birewrite assoc (add (add ?x ?y) ?z) (add ?x (add ?y ?z)))
    (rewrite mul-comm (mul ?x ?y) (mul ?y ?x))
    (schedule (saturate default )" + limits +
                                          R"()))"};
  return parse_rules(std::span(&s, 1));
}

// a0 + a1·b1 + ... + a{n-1}·b{n-1}, over i64 so that re-association is exact.
ops::Graph long_sum(int n) {
  std::string text = "(input a0 (i64 4))";
  std::string sum = "a0";
  for (int i = 1; i < n; ++i) {
    const std::string k = std::to_string(i);
    text += " (input a" + k + " (i64 4)) (input b" + k + " (i64 4))";
    sum = "(add " + sum + " (mul a" + k + " b" + k + "))";
  }
  return ops::parse_graph(text + " (output " + sum + ")", "sum.eg", ".");
}

std::vector<ops::Array> inputs_for(const ops::Graph& g) {
  std::vector<ops::Array> out;
  double v = 1;
  for (std::size_t k = 0; k < g.inputs.size(); ++k, v += 1)
    out.push_back(ops::Array::filled(ops::DType::I64, {4}, v));
  return out;
}

void check_same_values(const ops::Graph& before, const ops::Graph& after) {
  INFO("optimized:\n" << ops::print_graph(after));
  const auto expected = backend::compile(before).run(inputs_for(before));
  const auto actual = backend::compile(after).run(inputs_for(before));
  REQUIRE(expected.size() == actual.size());
  for (std::int64_t i = 0; i < expected[0].size(); ++i)
    CHECK(actual[0].element(i) == expected[0].element(i));
}

}  // namespace

TEST_CASE("an exploding rule set stops at the node limit deterministically") {
  const ops::Graph g = long_sum(10);
  const RuleProgram rules = exploding(":iter 1000 :nodes 3000 :time 600");
  OptimizeReport r1, r2;
  const ops::Graph a = optimize(g, rules, &r1);
  const ops::Graph b = optimize(g, rules, &r2);
  REQUIRE(r1.phases.size() == 1);
  CHECK(r1.stop_reason == "node limit");
  // The runner stops after the application that crosses the limit; one
  // application adds a handful of e-nodes.
  CHECK(r1.enodes <= 3000 + 16);
  CHECK(r1.iterations < 1000);
  CHECK(a == b);
  CHECK(r1.enodes == r2.enodes);
  check_same_values(g, a);
}

TEST_CASE("an exploding rule set stops at the time limit") {
  const ops::Graph g = long_sum(14);
  const RuleProgram rules = exploding(":iter 100000 :nodes 100000000 :time 0.2");
  OptimizeReport r;
  const ops::Graph out = optimize(g, rules, &r);
  REQUIRE(r.phases.size() == 1);
  CHECK(r.stop_reason == "time limit");
  // Not a timing: a step that ignored its limit would run for minutes (and
  // grow without bound); one that honours it overshoots by at most one
  // search and rebuild.
  CHECK(r.phases[0].seconds < 5.0);
  check_same_values(g, out);
}

TEST_CASE("an exploding rule set stops at the iteration limit") {
  const ops::Graph g = long_sum(8);
  const RuleProgram rules = exploding(":iter 3 :nodes 100000000 :time 600");
  OptimizeReport r;
  const ops::Graph out = optimize(g, rules, &r);
  REQUIRE(r.phases.size() == 1);
  CHECK(r.stop_reason == "iteration limit");
  CHECK(r.iterations == 3);
  check_same_values(g, out);
}
