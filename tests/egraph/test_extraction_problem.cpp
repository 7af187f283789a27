// Tests of ExtractionProblem: dense numbering, validation of costs and ids.
#include "egraph/extract/problem.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace eqsat::egraph;

TEST_CASE("classes and nodes are numbered in the order they are added", "[extraction_problem]") {
  ExtractionProblem p;
  const auto x = p.add_class(), y = p.add_class();
  const auto leaf = p.add_node(x, 1.0, {});
  const auto f = p.add_node(y, 2.5, {x, x});
  const auto g = p.add_node(x, 0.0, {y}, true);
  p.add_root(y);
  p.add_root(y);
  CHECK(x.value == 0);
  CHECK(y.value == 1);
  CHECK(p.num_classes() == 2);
  CHECK(p.num_nodes() == 3);
  CHECK(p.nodes_of(x).size() == 2);
  CHECK(p.nodes_of(x)[0] == leaf);
  CHECK(p.nodes_of(x)[1] == g);
  CHECK(p.node(f).children == std::vector<ProblemClassId>{x, x});
  CHECK(p.node(g).subsumed);
  CHECK(p.roots() == std::vector<ProblemClassId>{y});
}

TEST_CASE("invalid costs and ids are refused", "[extraction_problem]") {
  ExtractionProblem p;
  const auto x = p.add_class();
  CHECK_THROWS_AS(p.add_node(x, std::numeric_limits<double>::quiet_NaN(), {}), ProblemError);
  CHECK_THROWS_AS(p.add_node(x, std::numeric_limits<double>::infinity(), {}), ProblemError);
  CHECK_THROWS_AS(p.add_node(ProblemClassId{1}, 1.0, {}), ProblemError);
  CHECK_THROWS_AS(p.add_node(x, 1.0, {ProblemClassId{5}}), ProblemError);
  CHECK_THROWS_AS(p.add_root(ProblemClassId{1}), ProblemError);
  CHECK(p.num_nodes() == 0);
  CHECK_FALSE(p.has_negative_costs());
  p.add_node(x, -1.0, {});  // a reward
  CHECK(p.has_negative_costs());
}
