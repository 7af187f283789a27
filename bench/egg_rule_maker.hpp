// Rewrites of egg's benchmark languages written as text, the way egg's
// `rewrite!` macro writes them: a name, two patterns and conditions.
#pragma once

#include "egraph/rewrite.hpp"

#include <utility>
#include <vector>

namespace eqsat::bench {

// Parses rules in one language's syntax:
//   const RuleMaker rw{syntax()};
//   rw("div-canon", "(/ ?a ?b)", "(* ?a (pow ?b -1))", {is_not_zero("?b")});
struct RuleMaker {
  const egraph::Syntax& syntax;

  egraph::Rewrite operator()(const char* name, const char* lhs, const char* rhs,
                             std::vector<egraph::Condition> conditions = {}) const {
    egraph::Rewrite r = egraph::Rewrite::parse(name, lhs, rhs, syntax);
    for (egraph::Condition& c : conditions) r.when(std::move(c));
    return r;
  }
};

}  // namespace eqsat::bench
