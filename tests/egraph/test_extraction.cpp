// Tests of the shared extraction steps: best-first and preference-keeping
// acyclic choices, and make_extraction's costs and checks.
#include "egraph/extract/extraction.hpp"
#include "support/internal_error.hpp"

#include "extraction_testing.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::egraph;
using eqsat::egraph::testing::random_problem;

namespace {

std::vector<double> node_costs(const ExtractionProblem& p) {
  std::vector<double> costs;
  for (std::uint32_t n = 0; n < p.num_nodes(); ++n) costs.push_back(p.node(ProblemNodeId{n}).cost);
  return costs;
}

}  // namespace

TEST_CASE("acyclic choices exist exactly for classes with an acyclic term", "[extraction]") {
  ExtractionProblem p;
  const auto a = p.add_class(), b = p.add_class(), c = p.add_class();
  p.add_node(a, 1.0, {b});  // a needs b
  p.add_node(b, 1.0, {a});  // b needs a: neither has a term
  p.add_node(c, 5.0, {});
  p.add_node(c, 1.0, {a});
  const std::vector<std::optional<ProblemNodeId>> none(3);
  const auto choices = acyclic_choices(p, none, node_costs(p));
  CHECK_FALSE(choices[a.value]);
  CHECK_FALSE(choices[b.value]);
  REQUIRE(choices[c.value]);
  CHECK(*choices[c.value] == ProblemNodeId{2});
}

TEST_CASE("acyclic choices keep acyclic preferences and repair cyclic ones", "[extraction]") {
  ExtractionProblem p;
  const auto a = p.add_class(), b = p.add_class();
  const auto a_leaf = p.add_node(a, 9.0, {});
  const auto a_of_b = p.add_node(a, 1.0, {b});
  const auto b_leaf = p.add_node(b, 9.0, {});
  const auto b_of_a = p.add_node(b, 1.0, {a});
  p.add_root(a);
  // Acyclic preferences are kept even when dearer.
  const std::vector<std::optional<ProblemNodeId>> keep{a_of_b, b_leaf};
  auto choices = acyclic_choices(p, keep, node_costs(p));
  CHECK(choices[a.value] == a_of_b);
  CHECK(choices[b.value] == b_leaf);
  // A preferred cycle is broken: one class falls back to its leaf.
  const std::vector<std::optional<ProblemNodeId>> cycle{a_of_b, b_of_a};
  choices = acyclic_choices(p, cycle, node_costs(p));
  const Extraction e = make_extraction(p, choices, 0.0, false);
  eqsat::egraph::testing::check_extraction(p, e);
  CHECK((choices[a.value] == a_leaf || choices[b.value] == b_leaf));
}

TEST_CASE("make_extraction measures DAG and tree cost and rejects bad choices", "[extraction]") {
  ExtractionProblem p;
  const auto x = p.add_class(), y = p.add_class(), z = p.add_class();
  const auto leaf = p.add_node(x, 2.0, {});
  const auto pair = p.add_node(y, 3.0, {x, x});
  const auto top = p.add_node(z, 1.0, {y, x});
  const auto loop = p.add_node(x, 0.0, {z});
  p.add_root(z);
  const Extraction e =
      make_extraction(p, std::vector<std::optional<ProblemNodeId>>{leaf, pair, top}, 0.5, true);
  CHECK(e.dag_cost == 6.0);               // 2 + 3 + 1, x once
  CHECK(e.tree_cost == 1.0 + 7.0 + 2.0);  // z(y(x, x), x)
  CHECK(e.order == std::vector<ProblemClassId>{x, y, z});
  CHECK(e.seconds == 0.5);
  CHECK(e.optimal);
  CHECK_THROWS_AS(
      make_extraction(p, std::vector<std::optional<ProblemNodeId>>{loop, pair, top}, 0, false),
      eqsat::InternalError);
  CHECK_THROWS_AS(
      make_extraction(p, std::vector<std::optional<ProblemNodeId>>{std::nullopt, pair, top}, 0,
                      false),
      eqsat::InternalError);
  try {
    make_extraction(p, std::vector<std::optional<ProblemNodeId>>(3), 0, false);
    FAIL("no error for a root without a choice");
  } catch (const ExtractionError& error) {
    CHECK(error.root() == z);
  }
}

TEST_CASE("best-first choices are always acyclic (random problems)", "[extraction]") {
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = random_problem(seed, 8);
    std::mt19937 rng(seed);
    std::vector<double> scores;
    for (std::uint32_t n = 0; n < p.num_nodes(); ++n)
      scores.push_back(std::uniform_real_distribution<>(-5, 5)(rng));
    std::vector<std::optional<ProblemNodeId>> preferred(p.num_classes());
    for (std::uint32_t c = 0; c < p.num_classes(); ++c) {
      const auto nodes = p.nodes_of(ProblemClassId{c});
      if (!nodes.empty() && rng() % 2 == 0) preferred[c] = nodes[rng() % nodes.size()];
    }
    const auto choices = acyclic_choices(p, preferred, scores);
    const bool feasible = eqsat::egraph::testing::brute_force(p).has_value();
    if (!feasible) {
      CHECK_THROWS_AS(make_extraction(p, choices, 0, false), ExtractionError);
      continue;
    }
    eqsat::egraph::testing::check_extraction(p, make_extraction(p, choices, 0, false));
  }
}

TEST_CASE("a forbidden node is usable only where its class needs it", "[extraction]") {
  ExtractionProblem p;
  const auto x = p.add_class(), y = p.add_class(), z = p.add_class();
  const auto unstable = p.add_node(y, 0.0, {x});  // cheaper, but forbidden
  const auto stable = p.add_node(y, 5.0, {x});
  const auto leaf = p.add_node(x, 1.0, {});
  const auto only = p.add_node(z, 1.0, {y});  // z has nothing else: stays usable
  p.forbid(unstable);
  p.forbid(only);
  p.add_root(z);
  CHECK(p.has_forbidden());
  const auto usable = usable_nodes(p);
  CHECK_FALSE(usable[unstable.value]);
  CHECK(usable[stable.value]);
  CHECK(usable[leaf.value]);
  CHECK(usable[only.value]);
}

TEST_CASE("forbidding nodes never changes which classes have a term (random problems)",
          "[extraction]") {
  for (std::uint32_t seed = 0; seed < 500; ++seed) {
    INFO("seed " << seed);
    const ExtractionProblem p = random_problem(seed, 8, false, true);
    const std::vector<std::optional<ProblemNodeId>> none(p.num_classes());
    const auto with = acyclic_choices(p, none, node_costs(p));
    // The same problem with nothing forbidden.
    ExtractionProblem plain;
    for (std::size_t c = 0; c < p.num_classes(); ++c) plain.add_class();
    for (std::uint32_t n = 0; n < p.num_nodes(); ++n) {
      const ProblemNode& node = p.node(ProblemNodeId{n});
      plain.add_node(node.eclass, node.cost, node.children, node.subsumed);
    }
    const auto without = acyclic_choices(plain, none, node_costs(plain));
    const auto usable = usable_nodes(p);
    for (std::size_t c = 0; c < p.num_classes(); ++c) {
      CHECK(with[c].has_value() == without[c].has_value());
      if (with[c]) CHECK(usable[with[c]->value]);
    }
    // Without forbidden nodes, exactly the subsumed ones are unusable.
    const auto plain_usable = usable_nodes(plain);
    for (std::uint32_t n = 0; n < plain.num_nodes(); ++n)
      CHECK(plain_usable[n] == !plain.node(ProblemNodeId{n}).subsumed);
  }
}
