// Persistent, hash-consed sets of classes with the sum of their costs: what
// greedy-DAG extraction keeps per class ("the classes the term DAG below it
// uses, each paid once") without a copy per class.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace eqsat::egraph {

// Sets of class numbers, each class carrying a fixed cost (`cost_of`, set
// before the class is first inserted), as treaps whose priority is a hash
// of the key: a set has one tree shape whatever the order it was built in,
// and every tree node is hash-consed, so equal sets are the same `Set` and
// sets built from one another share all their unchanged subtrees. A chain
// of n classes, each set one larger than the last, takes O(n log n) memory
// instead of O(n^2); `unite` skips shared subtrees in O(1).
//
//   CostSets sets;
//   sets.set_cost(3, 2.5);  sets.set_cost(7, 1.0);
//   CostSets::Set a = sets.insert(CostSets::kEmpty, 3);
//   CostSets::Set b = sets.unite(a, sets.insert(CostSets::kEmpty, 7));
//   sets.total(b) == 3.5;  sets.size(b) == 2;
//
// The total is summed in tree order, so it depends on the set only.
class CostSets {
 public:
  using Set = std::uint32_t;
  static constexpr Set kEmpty = 0;

  CostSets();

  // The cost a class carries in every set; must be set before the class is
  // inserted and not changed afterwards.
  void set_cost(std::uint32_t key, double cost);

  Set insert(Set set, std::uint32_t key);
  Set unite(Set a, Set b);

  double total(Set set) const { return nodes_[set].total; }
  std::uint32_t size(Set set) const { return nodes_[set].size; }
  // Tree nodes held (all sets together), for tests and reports.
  std::size_t num_tree_nodes() const { return nodes_.size() - 1; }

 private:
  struct Node {
    std::uint32_t key = 0;
    Set left = kEmpty, right = kEmpty;
    std::uint32_t size = 0;
    double total = 0.0;
  };

  // Treap priority: a fixed mix of the key (ties broken by key).
  static std::uint64_t priority(std::uint32_t key);
  static bool above(std::uint32_t a, std::uint32_t b);
  static std::uint64_t hash(std::uint32_t key, Set left, Set right);
  Set make(std::uint32_t key, Set left, Set right);
  Set unite_trees(Set a, Set b);
  // The keys of `set` below and above `key` (`key` itself dropped).
  std::pair<Set, Set> split(Set set, std::uint32_t key);
  void grow_table();

  std::vector<Node> nodes_;           // index 0 is the empty set
  std::vector<double> cost_;          // by key
  std::vector<std::uint64_t> table_;  // hash-cons, open addressing; 0 marks a free slot
  std::size_t mask_ = 0;
  absl::flat_hash_map<std::uint64_t, Set> unions_;  // (smaller, larger set) -> union
};

}  // namespace eqsat::egraph
