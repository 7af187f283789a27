// Tests of tree-cost extraction against a brute-force optimum.
#include "egraph/extract/bottom_up.hpp"

#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::egraph;
namespace t = eqsat::egraph::testing;

TEST_CASE("bottom-up finds the minimal tree cost (random problems)", "[extract_bottom_up]") {
  for (std::uint32_t seed = 0; seed < 400; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_bottom_up(p), ExtractionError);
      continue;
    }
    const Extraction e = extract_bottom_up(p);
    t::check_extraction(p, e);
    CHECK(e.tree_cost == best->tree_cost);
    CHECK(e.dag_cost >= best->dag_cost);
    CHECK_FALSE(e.optimal);
  }
}

TEST_CASE("bottom-up is valid with negative costs (random problems)", "[extract_bottom_up]") {
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed, 6, true);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_bottom_up(p), ExtractionError);
      continue;
    }
    const Extraction e = extract_bottom_up(p);
    t::check_extraction(p, e);
    CHECK(e.dag_cost >= best->dag_cost);
    CHECK(e.tree_cost >= best->tree_cost);
  }
}

TEST_CASE("bottom-up survives tree costs that overflow a double", "[extract_bottom_up]") {
  // c[i] = f(c[i-1], c[i-1]): the tree doubles at each level.
  ExtractionProblem p;
  auto previous = p.add_class();
  p.add_node(previous, 1.0, {});
  for (int level = 0; level < 1100; ++level) {
    const auto next = p.add_class();
    p.add_node(next, 1.0, {previous, previous});
    previous = next;
  }
  p.add_root(previous);
  const Extraction e = extract_bottom_up(p);
  t::check_extraction(p, e);
  CHECK(e.dag_cost == 1101.0);
  CHECK(std::isinf(e.tree_cost));
}

TEST_CASE("bottom-up never takes a forbidden node its class can do without (random problems)",
          "[extract_bottom_up]") {
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed, 6, false, true);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_bottom_up(p), ExtractionError);
      continue;
    }
    const Extraction e = extract_bottom_up(p);
    t::check_extraction(p, e);
    CHECK(e.tree_cost == best->tree_cost);
    CHECK(e.dag_cost >= best->dag_cost);
  }
}
