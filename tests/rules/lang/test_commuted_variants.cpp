// A `:comm` rule's left sides: every order of the operands of its
// commutative nodes, the written one first, each distinct one once.
#include "rules/lang/commuted_variants.hpp"

#include "rules/lang/rule_parser.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

// The left side of a one-rule program `(rewrite r LHS ?x)`.
ast::Pattern left_side(const std::string& lhs) {
  const std::string text = "(rewrite r " + lhs + " ?x)";
  const RuleSource source{"t.rules", text};
  return parse_rules(std::span(&source, 1)).rewrites().at(0).lhs;
}

std::vector<std::string> written(const std::string& lhs) {
  std::vector<std::string> out;
  for (const ast::Pattern& p : commuted_variants(left_side(lhs))) out.push_back(ast::to_string(p));
  return out;
}

}  // namespace

TEST_CASE("commuted variants: every order of each commutative node, the written one first") {
  CHECK(written("(add ?x (mul ?y 2))") ==
        std::vector<std::string>{"(add ?x (mul ?y 2))", "(add ?x (mul 2 ?y))",
                                 "(add (mul ?y 2) ?x)", "(add (mul 2 ?y) ?x)"});
}

TEST_CASE("commuted variants: operands without a commutative node are kept as written") {
  CHECK(written("(exp (sub ?x (log ?y)))") == std::vector<std::string>{"(exp (sub ?x (log ?y)))"});
  CHECK(written("(sub (add ?x 1) (exp ?y))") ==
        std::vector<std::string>{"(sub (add ?x 1) (exp ?y))", "(sub (add 1 ?x) (exp ?y))"});
}

TEST_CASE("commuted variants: orders written alike are one variant") {
  CHECK(written("(add ?x ?x)") == std::vector<std::string>{"(add ?x ?x)"});
  CHECK(written("(mul (add ?x ?y) (add ?x ?y))").size() == 4);
}
