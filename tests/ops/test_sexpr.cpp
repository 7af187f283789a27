// The s-expression reader: atoms, lists, comments, positions and errors.
#include "ops/sexpr.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::ops;

TEST_CASE("atoms are classified") {
  auto es = read_sexprs("x ?y :axis 2 -3 1.5 1e-3 -2.5 true false \"w.npy\" -", "t.eg");
  REQUIRE(es.size() == 12);
  CHECK(es[0].is_symbol("x"));
  CHECK(es[1].is_symbol("?y"));
  CHECK((es[2].is_keyword() && es[2].text == "axis"));
  CHECK((es[3].kind == SExpr::Kind::Int && es[3].int_value == 2));
  CHECK((es[4].kind == SExpr::Kind::Int && es[4].int_value == -3));
  CHECK((es[5].kind == SExpr::Kind::Float && es[5].float_value == 1.5));
  CHECK((es[6].kind == SExpr::Kind::Float && es[6].float_value == 1e-3));
  CHECK((es[7].kind == SExpr::Kind::Float && es[7].float_value == -2.5));
  CHECK((es[8].kind == SExpr::Kind::Bool && es[8].bool_value));
  CHECK((es[9].kind == SExpr::Kind::Bool && !es[9].bool_value));
  CHECK((es[10].kind == SExpr::Kind::String && es[10].text == "w.npy"));
  CHECK(es[11].is_symbol("-"));
}

TEST_CASE("lists nest and keep positions - comments are skipped") {
  auto es = read_sexprs("; a comment\n(add x\n   (exp y)) ; tail\n", "t.eg");
  REQUIRE(es.size() == 1);
  CHECK(es[0].head() == "add");
  CHECK(es[0].where == SourceLocation{"t.eg", 2, 1});
  REQUIRE(es[0].items.size() == 3);
  CHECK(es[0].items[2].where == SourceLocation{"t.eg", 3, 4});
  CHECK(es[0].items[2].describe() == "(exp ...)");
}

TEST_CASE("syntax errors are located") {
  CHECK_THROWS_WITH(read_sexprs("(add x\n  (exp y)", "a.eg"),
                    "a.eg:1:1: error: unbalanced '(': no matching ')'");
  CHECK_THROWS_WITH(read_sexprs("x)\n", "b.eg"), "b.eg:1:2: error: unexpected ')'");
  CHECK_THROWS_WITH(read_sexprs("(load \"w.npy)", "c.eg"), "c.eg:1:7: error: unterminated string");
  CHECK_THROWS_WITH(read_sexprs("  1.2.3", "d.eg"), "d.eg:1:3: error: malformed number '1.2.3'");
  CHECK_THROWS_WITH(read_sexpr_file("/nonexistent/g.eg"),
                    "/nonexistent/g.eg: error: cannot read file: No such file or directory");
}

TEST_CASE("lists nested too deep are refused, not a stack overflow") {
  const auto nested = [](int n) { return std::string(n, '(') + std::string(n, ')'); };
  CHECK(read_sexprs(nested(1000), "e.eg").size() == 1);
  CHECK_THROWS_WITH(read_sexprs(nested(100000), "e.eg"),
                    "e.eg:1:1001: error: expressions nest deeper than 1000 levels; name "
                    "intermediate values with let");
}
