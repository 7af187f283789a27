// Tests of exact ILP extraction: equal to the brute-force optimum, proven
// optimal, and within its time limit on a larger instance.
#include "egraph/extract_ilp.hpp"

#include "egraph/extract_greedy_dag.hpp"
#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using namespace eqsat::egraph;
namespace t = eqsat::egraph::testing;

TEST_CASE("ilp equals the brute-force DAG optimum (random problems)", "[extract_ilp]") {
  int solved_by_cbc = 0;
  for (std::uint32_t seed = 0; seed < 400; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed, seed % 2 == 0 ? 6 : 7);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_ilp(p), ExtractionError);
      continue;
    }
    IlpStats stats;
    const Extraction e = extract_ilp(p, IlpOptions{}, &stats);
    t::check_extraction(p, e);
    CHECK(e.dag_cost == best->dag_cost);
    CHECK(e.optimal);
    solved_by_cbc += stats.solver_ran ? 1 : 0;
  }
  CHECK(solved_by_cbc > 50);  // the property covers CBC, not only the forced cases
}

TEST_CASE("ilp equals the brute-force optimum with negative costs", "[extract_ilp]") {
  // Rewards tempt a solver to activate classes nothing uses: the support
  // constraints must keep the objective equal to the DAG cost.
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed, 7, true);
    const auto best = t::brute_force(p);
    if (!best) {
      CHECK_THROWS_AS(extract_ilp(p), ExtractionError);
      continue;
    }
    const Extraction e = extract_ilp(p);
    t::check_extraction(p, e);
    CHECK(e.dag_cost == best->dag_cost);
    CHECK(e.optimal);
  }
}

namespace {

// A layered problem with heavy sharing and back edges: hard enough that CBC
// does not finish in a fraction of a second.
ExtractionProblem large_problem(std::uint32_t seed, int classes) {
  std::mt19937 rng(seed);
  ExtractionProblem p;
  for (int c = 0; c < classes; ++c) p.add_class();
  for (int c = 0; c < classes; ++c) {
    const ProblemClassId eclass{static_cast<std::uint32_t>(c)};
    if (c < 10) p.add_node(eclass, 1 + rng() % 50, {});
    for (int k = 0; k < 4 && c >= 10; ++k) {
      std::vector<ProblemClassId> children;
      for (int i = 0; i < 2; ++i) {
        // Mostly lower classes, sometimes a higher one: cycles.
        const auto child = rng() % 8 == 0 ? rng() % classes : rng() % c;
        children.push_back(ProblemClassId{static_cast<std::uint32_t>(child)});
      }
      p.add_node(eclass, 1 + rng() % 20, std::move(children));
    }
  }
  for (int r = 0; r < 20; ++r)
    p.add_root(ProblemClassId{static_cast<std::uint32_t>(classes - 1 - r)});
  return p;
}

}  // namespace

TEST_CASE("ilp honours its time limit and returns a valid extraction", "[extract_ilp]") {
  const ExtractionProblem p = large_problem(7, 3000);
  const Extraction greedy = extract_greedy_dag(p);
  const auto start = std::chrono::steady_clock::now();
  const Extraction e = extract_ilp(p, IlpOptions{0.5});
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t::check_extraction(p, e);
  CHECK(e.dag_cost <= greedy.dag_cost);
  CHECK(wall < 20.0);  // generous: the limit is 0.5 s
  CHECK(e.seconds <= wall);
}
