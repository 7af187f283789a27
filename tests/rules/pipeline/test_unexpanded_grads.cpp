// rules/pipeline/unexpanded_grads.hpp: optimize returns no graph holding a
// `grad`; each one left is refused at its position with the reason.
#include "tests/support/check_optimizes.hpp"

using namespace eqsat;
using eqsat::testing::graph;
using eqsat::testing::rules_from;

TEST_CASE("a rule program that expands no gradient has its grads refused, each located") {
  const ops::Graph g = graph(
      "(input x (f64 3))\n"
      "(input y (f64 3))\n"
      "(output (grad (sum (exp x)) x))\n"
      "(output (grad (sum (mul x y)) y))\n");
  const rules::RuleProgram no_grads = rules_from(
      "(ruleset r)\n(rewrite add-zero (add ?x 0.0) ?x :ruleset r)\n(schedule (saturate r))\n");
  const std::string why =
      "cannot be expanded: the rules did not expand it (no expand-gradients "
      "phase, or a limit stopped it)";
  CHECK_THROWS_WITH(rules::optimize(g, no_grads), "t.eg:3:9: error: grad with respect to x " + why +
                                                      "\nt.eg:4:9: error: grad "
                                                      "with respect to y " +
                                                      why);
  // The shipped rules expand both.
  CHECK_NOTHROW(rules::optimize(g, eqsat::testing::shipped_rules()));
}
