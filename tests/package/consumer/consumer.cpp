// Proves (* a 2) = (<< a 1) with one rewrite on the installed eqsat::egraph;
// exits 0 only when the two terms end in one e-class.
#include "egraph/egraph.hpp"
#include "egraph/rewrite.hpp"
#include "egraph/runner.hpp"

#include <iostream>

int main() {
  using namespace eqsat::egraph;
  EGraph g;
  const EClassId lhs = g.add_expr(RecExpr::parse("(* a 2)"));
  const EClassId rhs = g.add_expr(RecExpr::parse("(<< a 1)"));
  std::vector<Rewrite> rules;
  rules.emplace_back("mul-two", Pattern::parse("(* ?x 2)"), Pattern::parse("(<< ?x 1)"));
  const RunReport report = Runner(g).run(rules);
  std::cout << report.to_string(false) << "\n";
  return g.find(lhs) == g.find(rhs) ? 0 : 1;
}
