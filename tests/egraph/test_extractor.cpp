// Tests of choosing an extractor by name: the names the command line takes,
// and that each kind runs its own algorithm.
#include "egraph/extract/extractor.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::egraph;

TEST_CASE("extractor names parse and print back", "[extractor]") {
  for (ExtractorKind kind :
       {ExtractorKind::BottomUp, ExtractorKind::GreedyDag, ExtractorKind::Ilp}) {
    CHECK(parse_extractor(extractor_name(kind)) == kind);
  }
  CHECK(extractor_name(ExtractorKind::GreedyDag) == "greedy-dag");
  CHECK_FALSE(parse_extractor("greedy").has_value());
  CHECK_FALSE(parse_extractor("").has_value());
}

TEST_CASE("each kind runs its own extractor", "[extractor]") {
  // root: f(x, y) with x = p(s), y = q(s) sharing s, or a leaf of cost 14.
  // Trees: f costs 23, the leaf 14. DAG: f costs 13. Greedy sees it too.
  ExtractionProblem p;
  const auto s = p.add_class(), x = p.add_class(), y = p.add_class(), root = p.add_class();
  p.add_node(s, 10.0, {});
  p.add_node(x, 1.0, {s});
  p.add_node(y, 1.0, {s});
  p.add_node(root, 1.0, {x, y});
  p.add_node(root, 14.0, {});
  p.add_root(root);
  CHECK(extract(p, ExtractorKind::BottomUp).dag_cost == 14.0);
  CHECK(extract(p, ExtractorKind::GreedyDag).dag_cost == 13.0);
  const Extraction exact = extract(p, ExtractorKind::Ilp, 5.0);
  CHECK(exact.dag_cost == 13.0);
  CHECK(exact.optimal);
}
