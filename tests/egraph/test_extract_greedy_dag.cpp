// Tests of DAG-aware greedy extraction: valid, never below the optimum, and
// sharing-aware where tree cost is not.
#include "egraph/extract/greedy_dag.hpp"

#include "egraph/extract/bottom_up.hpp"
#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::egraph;
namespace t = eqsat::egraph::testing;

TEST_CASE("greedy-dag is valid and never below the optimum (random problems)",
          "[extract_greedy_dag]") {
  for (std::uint32_t seed = 0; seed < 400; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_greedy_dag(p), ExtractionError);
      continue;
    }
    const Extraction e = extract_greedy_dag(p);
    t::check_extraction(p, e);
    CHECK(e.dag_cost >= best->dag_cost);
    CHECK_FALSE(e.optimal);
  }
}

TEST_CASE("greedy-dag is valid with negative costs (random problems)", "[extract_greedy_dag]") {
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed, 6, true);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_greedy_dag(p), ExtractionError);
      continue;
    }
    const Extraction e = extract_greedy_dag(p);
    t::check_extraction(p, e);
    CHECK(e.dag_cost >= best->dag_cost);
  }
}

TEST_CASE("greedy-dag pays a shared node once", "[extract_greedy_dag]") {
  // root = f(x, y) with x = p(s), y = q(s) sharing s, or a leaf. As trees the
  // leaf wins (15 < 23); as a DAG f(x, y) does (13 < 15).
  ExtractionProblem p;
  const auto s = p.add_class(), x = p.add_class(), y = p.add_class(), root = p.add_class();
  p.add_node(s, 10.0, {});
  p.add_node(x, 1.0, {s});
  p.add_node(y, 1.0, {s});
  const auto f = p.add_node(root, 1.0, {x, y});
  const auto leaf = p.add_node(root, 15.0, {});
  p.add_root(root);
  const Extraction greedy = extract_greedy_dag(p);
  const Extraction tree = extract_bottom_up(p);
  t::check_extraction(p, greedy);
  CHECK(greedy.choices[root.value] == f);
  CHECK(greedy.dag_cost == 13.0);
  CHECK(tree.choices[root.value] == leaf);
  CHECK(tree.dag_cost == 15.0);
}

TEST_CASE("greedy-dag is valid and never below the optimum with forbidden nodes",
          "[extract_greedy_dag]") {
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed, 6, false, true);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_greedy_dag(p), ExtractionError);
      continue;
    }
    const Extraction e = extract_greedy_dag(p);
    t::check_extraction(p, e);
    CHECK(e.dag_cost >= best->dag_cost);
  }
}

TEST_CASE("greedy-dag extracts a chain of 30000 classes with shared sets", "[extract_greedy_dag]") {
  // Class i is a leaf (cost i + 2, but 1 for class 0) or f(class i - 1)
  // (cost 1): the chain wins, and each class's cost set holds every class
  // below it, n^2 / 2 entries if copied.
  constexpr std::uint32_t n = 30000;
  ExtractionProblem p;
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto c = p.add_class();
    p.add_node(c, i == 0 ? 1.0 : static_cast<double>(i + 2), {});
    if (i > 0) p.add_node(c, 1.0, {ProblemClassId{i - 1}});
  }
  p.add_root(ProblemClassId{n - 1});
  const Extraction e = extract_greedy_dag(p);
  t::check_extraction(p, e);
  CHECK(e.dag_cost == static_cast<double>(n));  // the whole chain, down to the leaf 1
  CHECK(e.order.size() == n);
}
