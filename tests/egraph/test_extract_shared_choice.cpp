// Tests of the shared-choice pass: a class read by several classes is
// chosen for all of them when that costs less, the result stays a valid
// extraction, and the pass never makes an extraction costlier.
#include "egraph/extract/shared_choice.hpp"

#include "egraph/extract/bottom_up.hpp"
#include "egraph/extract/greedy_dag.hpp"
#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::egraph;
namespace t = eqsat::egraph::testing;

namespace {

// A loop L (cost 10) with two outputs read by roots r0 = get0(L) and
// r1 = get1(L); each root also has a loop of its own (cost 7) serving it
// alone. Per class, each root takes its own loop (7 < 10): 14 in all; one
// shared loop costs 10.
struct TwoReaders {
  ExtractionProblem p;
  ProblemClassId shared, alone0, alone1, r0, r1;
  ProblemNodeId via_shared0, via_shared1;

  TwoReaders() {
    shared = p.add_class();
    alone0 = p.add_class();
    alone1 = p.add_class();
    r0 = p.add_class();
    r1 = p.add_class();
    p.add_node(shared, 10.0, {});
    p.add_node(alone0, 7.0, {});
    p.add_node(alone1, 7.0, {});
    via_shared0 = p.add_node(r0, 0.0, {shared});
    p.add_node(r0, 0.0, {alone0});
    via_shared1 = p.add_node(r1, 0.0, {shared});
    p.add_node(r1, 0.0, {alone1});
    p.add_root(r0);
    p.add_root(r1);
  }
};

}  // namespace

TEST_CASE("one loop serving two readers replaces a loop for each", "[extract_shared_choice]") {
  TwoReaders x;
  const Extraction greedy = extract_greedy_dag(x.p);
  CHECK(greedy.dag_cost == 14.0);
  const std::vector<ProblemClassId> candidates{x.shared};
  const Extraction shared = share_candidates(x.p, greedy, candidates);
  t::check_extraction(x.p, shared);
  CHECK(shared.dag_cost == 10.0);
  CHECK(shared.choices[x.r0.value] == x.via_shared0);
  CHECK(shared.choices[x.r1.value] == x.via_shared1);
  CHECK_FALSE(shared.choices[x.alone0.value].has_value());
}

TEST_CASE("a class that is not a candidate is left to the extractor", "[extract_shared_choice]") {
  TwoReaders x;
  const Extraction greedy = extract_greedy_dag(x.p);
  const std::vector<ProblemClassId> candidates{x.alone0};
  CHECK(share_candidates(x.p, greedy, candidates).dag_cost == 14.0);
}

TEST_CASE("sharing that would cost more is not taken", "[extract_shared_choice]") {
  // The shared loop costs 20: two loops of 7 stay.
  ExtractionProblem p;
  const auto shared = p.add_class(), a = p.add_class(), b = p.add_class();
  const auto r0 = p.add_class(), r1 = p.add_class();
  p.add_node(shared, 20.0, {});
  p.add_node(a, 7.0, {});
  p.add_node(b, 7.0, {});
  p.add_node(r0, 0.0, {shared});
  const auto own0 = p.add_node(r0, 0.0, {a});
  p.add_node(r1, 0.0, {shared});
  const auto own1 = p.add_node(r1, 0.0, {b});
  p.add_root(r0);
  p.add_root(r1);
  const std::vector<ProblemClassId> candidates{shared};
  const Extraction e = share_candidates(p, extract_greedy_dag(p), candidates);
  CHECK(e.dag_cost == 14.0);
  CHECK(e.choices[r0.value] == own0);
  CHECK(e.choices[r1.value] == own1);
}

TEST_CASE("the pass keeps extractions valid and never costlier (random problems)",
          "[extract_shared_choice]") {
  int improved = 0;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = t::random_problem(seed);
    const auto best = t::brute_force(p);
    if (!best) continue;
    std::vector<ProblemClassId> every;
    for (std::uint32_t c = 0; c < p.num_classes(); ++c) every.push_back(ProblemClassId{c});
    for (const Extraction& before : {extract_greedy_dag(p), extract_bottom_up(p)}) {
      const Extraction after = share_candidates(p, before, every);
      t::check_extraction(p, after);
      CHECK(after.dag_cost <= before.dag_cost);
      CHECK(after.dag_cost >= best->dag_cost);
      improved += after.dag_cost < before.dag_cost;
    }
  }
  CHECK(improved > 0);  // the random problems do exercise the pass
}
