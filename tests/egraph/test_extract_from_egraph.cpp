// Tests of extraction from an EGraph: conversion with a cost callback, terms
// read back (each really in its class), cycles, sharing, and export to
// egraph-serialize JSON.
#include "egraph/extract/from_egraph.hpp"
#include "support/internal_error.hpp"

#include "egraph/extract/ilp.hpp"
#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <random>
#include <set>
#include <string>

using namespace eqsat::egraph;
namespace t = eqsat::egraph::testing;

namespace {

// Multiplications cost 4, every other e-node 1.
double shift_cost(const EGraph& g, ENodeId n) {
  const std::string_view op = g.op(n).name();
  return op == "*" ? 4.0 : 1.0;
}

}  // namespace

TEST_CASE("extraction picks the cheaper equivalent term", "[extract_from_egraph]") {
  EGraph g;
  const EClassId mul = g.add_expr(RecExpr::parse("(* x 2)"));
  const EClassId shl = g.add_expr(RecExpr::parse("(<< x 1)"));
  g.merge(mul, shl);
  g.rebuild();
  for (ExtractorKind kind :
       {ExtractorKind::BottomUp, ExtractorKind::GreedyDag, ExtractorKind::Ilp}) {
    const RecExpr best = extract_best(g, mul, kind, shift_cost);
    CHECK(best.to_string() == "(<< x 1)");
    CHECK(g.lookup_expr(best) == g.find(mul));
  }
}

TEST_CASE("a class merged with its own child extracts without the cycle", "[extract_from_egraph]") {
  EGraph g;
  const EClassId a = g.add_expr(RecExpr::parse("a"));
  const EClassId fa = g.add_expr(RecExpr::parse("(f a)"));
  g.merge(a, fa);
  g.rebuild();
  CHECK(extract_best(g, fa, ExtractorKind::Ilp).to_string() == "a");
  CHECK(extract_best(g, fa, ExtractorKind::BottomUp).to_string() == "a");
}

TEST_CASE("a shared subterm is one RecExpr node", "[extract_from_egraph]") {
  EGraph g;
  const EClassId root = g.add_expr(RecExpr::parse("(+ (g (h y)) (k (h y)))"));
  g.rebuild();
  const EClassId roots[] = {root};
  const EGraphProblem p = to_extraction_problem(g, roots);
  const Extraction e = extract_ilp(p.problem);
  CHECK(e.dag_cost == 5.0);  // +, g, k, h, y
  CHECK(e.tree_cost == 7.0);
  const ExtractedTerm term = extracted_term(g, p, e);
  CHECK(term.expr.size() == 5);
  CHECK(term.expr.to_string() == "(+ (g (h y)) (k (h y)))");
  CHECK(term.roots == std::vector<std::uint32_t>{4});
}

TEST_CASE("extraction from random e-graphs is optimal and lands in the root class",
          "[extract_from_egraph]") {
  const Symbol ops[] = {Symbol("f"), Symbol("g"), Symbol("h")};
  for (std::uint32_t seed = 0; seed < 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    EGraph g;
    std::vector<EClassId> classes{g.add(Symbol("x")), g.add(Symbol("y"))};
    for (int i = 0; i < 10; ++i) {
      const Symbol op = ops[rng() % 3];
      const EClassId kids[] = {classes[rng() % classes.size()], classes[rng() % classes.size()]};
      classes.push_back(g.add(op, 0, std::span<const EClassId>(kids, 1 + rng() % 2)));
    }
    for (int i = 0; i < 3; ++i)
      g.merge(classes[rng() % classes.size()], classes[rng() % classes.size()]);
    g.rebuild();
    const EClassId root = g.find(classes.back());
    const EClassId roots[] = {root};
    const ENodeCost cost = [](const EGraph& eg, ENodeId n) {
      return 1.0 + static_cast<double>(eg.op(n).name()[0] % 3);
    };
    const EGraphProblem p = to_extraction_problem(g, roots, cost);
    const auto best = t::brute_force(p.problem);
    REQUIRE(best);  // x and y are leaves: every class built from them has a term
    const Extraction e = extract_ilp(p.problem);
    t::check_extraction(p.problem, e);
    CHECK(e.dag_cost == best->dag_cost);
    const ExtractedTerm term = extracted_term(g, p, e);
    CHECK(g.lookup_expr(term.expr) == root);
  }
}

TEST_CASE("an e-graph exports to egraph-serialize JSON and back", "[extract_from_egraph]") {
  EGraph g;
  const EClassId mul = g.add_expr(RecExpr::parse("(* x c@2)"));
  const EClassId shl = g.add_expr(RecExpr::parse("(<< x c@1)"));
  g.merge(mul, shl);
  g.rebuild();
  const EClassId roots[] = {mul};
  const SerializedEGraph s = to_serialized(g, roots, shift_cost);
  const std::string text = to_serialized_json(s).dump();
  const SerializedEGraph back = parse_serialized_egraph(text, "egraph.json");
  CHECK(back.problem.num_classes() == g.num_classes());
  CHECK(back.problem.num_nodes() == g.num_nodes());
  REQUIRE(back.problem.roots().size() == 1);
  CHECK(back.class_ids[back.problem.roots()[0].value] == fmt::format("c{}", g.find(mul).value()));
  std::multiset<std::string> ops(back.ops.begin(), back.ops.end());
  CHECK(ops == std::multiset<std::string>{"*", "<<", "x", "c@2", "c@1"});
  const Extraction e = extract_ilp(back.problem);
  CHECK(e.dag_cost == 3.0);  // << x c@1
}

TEST_CASE("converting a dirty e-graph is refused", "[extract_from_egraph]") {
  EGraph g;
  const EClassId a = g.add(Symbol("a")), b = g.add(Symbol("b"));
  g.merge(a, b);
  const EClassId roots[] = {a};
  CHECK_THROWS_AS(to_extraction_problem(g, roots), eqsat::InternalError);
}
