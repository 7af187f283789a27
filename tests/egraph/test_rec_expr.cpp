// RecExprOf: terms and patterns are flat arrays of nodes read and printed
// by the one s-expression reader and printer; a pattern's AST holds
// nodes-or-variables, children before parents.
#include "egraph/pattern.hpp"
#include "egraph/rec_expr.hpp"
#include "support/internal_error.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace eqsat::egraph;

TEST_CASE("terms and patterns print back the text they were read from") {
  for (const char* text : {"x", "(f x x)", "(f (g a@2) (g a@2) b@3)", "(h (k (m z)))"}) {
    CHECK(RecExpr::parse(text).to_string() == text);
    CHECK(Pattern::parse(text).to_string() == text);
  }
  for (const char* text : {"?x", "(f ?x (g@?p ?x) c@7 d@_)", "(softmax@?ax (exp@_ ?y))"})
    CHECK(Pattern::parse(text).to_string() == text);
}

TEST_CASE("a pattern is a RecExpr of nodes-or-variables, children first") {
  const Pattern p = Pattern::parse("(f ?x (g@?p ?x) c@7)");
  const PatternAst& ast = p.ast();
  REQUIRE(ast.size() == 5);  // ?x, ?x, g, c, f
  CHECK(ast.node(0).is_var);
  CHECK(ast.node(1).is_var);
  CHECK(ast.node(0).var == ast.node(1).var);
  CHECK(ast.node(2).op == Symbol("g"));
  CHECK(ast.node(2).payload == PayloadMatch::bind(0));
  CHECK(ast.node(3).payload == PayloadMatch::exact(7));
  CHECK(ast.node(ast.root()).op == Symbol("f"));
  CHECK(std::vector<std::uint32_t>(ast.children(4).begin(), ast.children(4).end()) ==
        std::vector<std::uint32_t>{0, 2, 3});
  // A ground pattern holds the same heads, in the same places, as the term.
  const Pattern ground = Pattern::parse("(f (g a@2) b@3)");
  const RecExpr term = RecExpr::parse("(f (g a@2) b@3)");
  REQUIRE(ground.size() == term.size());
  for (std::size_t i = 0; i < term.size(); ++i) {
    CHECK(ground.node(i).op == term.node(i).op);
    CHECK(ground.node(i).payload == PayloadMatch::exact(term.node(i).payload));
    CHECK(ground.node(i).arity == term.node(i).arity);
  }
}

TEST_CASE("terms and patterns reject the same malformed lists") {
  for (const char* text : {"()", "((f) x)"}) {
    CHECK_THROWS_AS(RecExpr::parse(text), ParseError);
    CHECK_THROWS_AS(Pattern::parse(text), ParseError);
  }
  CHECK_THROWS_WITH(RecExpr::parse("(f ())"),
                    "1:4: error: empty list: expected (OPERATOR CHILD...)");
  CHECK_THROWS_WITH(Pattern::parse("(f ())"),
                    "1:4: error: empty list: expected (OPERATOR CHILD...)");
  CHECK_THROWS_WITH(Pattern::parse("(?f x)"), "1:2: error: a variable cannot be an operator");
  CHECK_THROWS_WITH(Pattern::parse("(f ?)"), "1:4: error: a variable needs a name after '?'");
}

TEST_CASE("a child must be an earlier node") {
  RecExpr e;
  const auto x = e.add(Symbol("x"));
  CHECK_THROWS_AS(e.add(Symbol("f"), 0, {x, 1}), eqsat::InternalError);
  Pattern p;
  const auto v = p.var("?v");
  CHECK_THROWS_AS(p.op(Symbol("f"), {}, {v, 5}), eqsat::InternalError);
  CHECK(p.size() == 1);
}
