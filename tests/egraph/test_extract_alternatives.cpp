// Tests of the alternatives search: distinct valid extractions, the given
// one first, the rest in non-decreasing cost, and every distinct DAG of a
// small problem reached when enough are asked for.
#include "egraph/extract/alternatives.hpp"

#include "egraph/extract/greedy_dag.hpp"
#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace eqsat::egraph;
namespace t = eqsat::egraph::testing;

namespace {

std::vector<std::uint32_t> chosen(const Extraction& x) {
  std::vector<std::uint32_t> s;
  for (const auto& c : x.choices)
    if (c) s.push_back(c->value);
  return s;
}

}  // namespace

TEST_CASE("alternatives are distinct, valid, and sorted after the first",
          "[extract_alternatives]") {
  int with_several = 0;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed);
    if (!t::brute_force(p)) continue;
    const Extraction best = extract_greedy_dag(p);
    const auto all = extract_alternatives(p, best, {.count = 6});
    REQUIRE_FALSE(all.empty());
    CHECK(chosen(all[0]) == chosen(best));
    std::set<std::vector<std::uint32_t>> seen;
    for (std::size_t i = 0; i < all.size(); ++i) {
      t::check_extraction(p, all[i]);
      CHECK(seen.insert(chosen(all[i])).second);
      if (i >= 2) CHECK(all[i - 1].dag_cost <= all[i].dag_cost);
    }
    with_several += all.size() > 1;
  }
  CHECK(with_several > 50);
}

TEST_CASE("every way to build a small problem is found", "[extract_alternatives]") {
  // root = f(x, y); x and y each have two leaves: four DAGs, or a leaf root.
  ExtractionProblem p;
  const auto x = p.add_class(), y = p.add_class(), root = p.add_class();
  p.add_node(x, 1.0, {});
  p.add_node(x, 2.0, {});
  p.add_node(y, 10.0, {});
  p.add_node(y, 20.0, {});
  p.add_node(root, 0.0, {x, y});
  p.add_node(root, 100.0, {});
  p.add_root(root);
  const auto all = extract_alternatives(p, extract_greedy_dag(p), {.count = 10});
  REQUIRE(all.size() == 5);
  std::vector<double> costs;
  for (const auto& e : all) costs.push_back(e.dag_cost);
  CHECK(costs == std::vector<double>{11, 12, 21, 22, 100});
}

TEST_CASE("no more than asked for", "[extract_alternatives]") {
  ExtractionProblem p;
  const auto x = p.add_class();
  p.add_node(x, 1.0, {});
  p.add_node(x, 2.0, {});
  p.add_root(x);
  CHECK(extract_alternatives(p, extract_greedy_dag(p), {.count = 1}).size() == 1);
  CHECK(extract_alternatives(p, extract_greedy_dag(p), {.count = 0}).empty());
}
