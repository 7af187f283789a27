// Tests of the persistent cost sets behind greedy-DAG extraction: they
// agree with std::set, equal sets are recognised, and a chain shares memory.
#include "egraph/extract/cost_sets.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <vector>

using eqsat::egraph::CostSets;

TEST_CASE("cost sets agree with std::set on random unions (property)", "[cost_sets]") {
  for (std::uint32_t seed = 0; seed < 50; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    CostSets sets;
    const std::uint32_t keys = 1 + seed * 7;
    for (std::uint32_t k = 0; k < keys; ++k) sets.set_cost(k, static_cast<double>(k % 5 + 1));
    std::vector<CostSets::Set> made{CostSets::kEmpty};
    std::vector<std::set<std::uint32_t>> expected{{}};
    for (int step = 0; step < 200; ++step) {
      const std::size_t a = rng() % made.size(), b = rng() % made.size();
      if (rng() % 2 == 0) {
        const std::uint32_t key = static_cast<std::uint32_t>(rng() % keys);
        made.push_back(sets.insert(made[a], key));
        auto s = expected[a];
        s.insert(key);
        expected.push_back(std::move(s));
      } else {
        made.push_back(sets.unite(made[a], made[b]));
        auto s = expected[a];
        s.insert(expected[b].begin(), expected[b].end());
        expected.push_back(std::move(s));
      }
    }
    for (std::size_t i = 0; i < made.size(); ++i) {
      double total = 0.0;
      for (std::uint32_t k : expected[i]) total += static_cast<double>(k % 5 + 1);
      CHECK(sets.size(made[i]) == expected[i].size());
      CHECK(sets.total(made[i]) == total);  // small integers: exact in any order
      for (std::size_t j = 0; j < i; ++j) {
        CHECK(sets.same(made[i], made[j]) == (expected[i] == expected[j]));
      }
    }
  }
}

TEST_CASE("a set is the same whatever order it is built in", "[cost_sets]") {
  CostSets sets;
  for (std::uint32_t k = 0; k < 100; ++k) sets.set_cost(k, 1.0);
  CostSets::Set up = CostSets::kEmpty, down = CostSets::kEmpty;
  for (std::uint32_t k = 0; k < 100; ++k) {
    up = sets.insert(up, k);
    down = sets.insert(down, 99 - k);
  }
  CHECK(sets.same(up, down));
  // Built apart, the two are recognised as equal at their roots: the union
  // is one of them and makes no tree node.
  const std::size_t held = sets.num_tree_nodes();
  CHECK(sets.unite(up, down) == up);
  CHECK(sets.unite(down, up) == down);
  CHECK(sets.num_tree_nodes() == held);
  CHECK(sets.total(up) == 100.0);
  CHECK(sets.total(down) == 100.0);
}

TEST_CASE("a chain of sets shares its subtrees", "[cost_sets]") {
  // Each set is the previous one plus a class: stored as copies this would
  // hold n (n + 1) / 2 entries; shared, about n log n tree nodes.
  constexpr std::uint32_t n = 30000;
  CostSets sets;
  CostSets::Set set = CostSets::kEmpty;
  for (std::uint32_t k = 0; k < n; ++k) {
    sets.set_cost(k, 1.0);
    set = sets.insert(set, k);
  }
  CHECK(sets.size(set) == n);
  CHECK(sets.total(set) == static_cast<double>(n));
  CHECK(sets.num_tree_nodes() < std::size_t{n} * 64);
}
