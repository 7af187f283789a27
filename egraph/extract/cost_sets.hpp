// Persistent sets of classes with the sum of their costs: what greedy-DAG
// extraction keeps per class ("the classes the term DAG below it uses,
// each paid once") without a copy per class.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace eqsat::egraph {

// Sets of class numbers, each class carrying a fixed cost (`set_cost`, set
// before the class is first inserted), as persistent treaps whose priority
// is a hash of the key: a set has one tree shape whatever the order it was
// built in, and a set built from another shares all its unchanged subtrees
// (path copying). Each tree node also holds a hash of its keys (a sum of
// per-key hashes), so two subtrees with the same keys are recognised in one
// comparison even when they were built apart, without a hash-cons table: a
// union skips them in O(1). A chain of n classes, each set one larger than
// the last, takes O(n log n) memory instead of O(n^2).
//
//   CostSets sets;
//   sets.set_cost(3, 2.5);  sets.set_cost(7, 1.0);
//   CostSets::Set a = sets.insert(CostSets::kEmpty, 3);
//   CostSets::Set b = sets.unite(a, sets.insert(CostSets::kEmpty, 7));
//   sets.total(b) == 3.5;  sets.size(b) == 2;
//
// The total is summed in tree order, so it depends on the set only. Two
// different sets are taken for equal only if their sizes and 64-bit key
// hashes collide (about 2^-64 for sets of one size).
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

  // Whether a and b hold the same keys (by size and key hash).
  bool same(Set a, Set b) const {
    return a == b || (nodes_[a].size == nodes_[b].size && nodes_[a].hash == nodes_[b].hash);
  }
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
    std::uint64_t hash = 0;  // sum of key_hash over the subtree's keys
  };

  // Treap priority: a fixed mix of the key (ties broken by key).
  static std::uint64_t priority(std::uint32_t key);
  static bool above(std::uint32_t a, std::uint32_t b);
  static std::uint64_t key_hash(std::uint32_t key);
  Set make(std::uint32_t key, Set left, Set right);
  Set unite_trees(Set a, Set b);
  // The keys of `set` below and above `key` (`key` itself dropped).
  std::pair<Set, Set> split(Set set, std::uint32_t key);

  std::vector<Node> nodes_;                         // index 0 is the empty set
  std::vector<double> cost_;                        // by key
  absl::flat_hash_map<std::uint64_t, Set> unions_;  // (smaller, larger set) -> union
};

}  // namespace eqsat::egraph
