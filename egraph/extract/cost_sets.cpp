#include "egraph/extract/cost_sets.hpp"

namespace eqsat::egraph {

namespace {

std::uint64_t mix(std::uint64_t x) {
  // splitmix64's finalizer: every input bit reaches every output bit.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

CostSets::CostSets() : nodes_(1) {}

void CostSets::set_cost(std::uint32_t key, double cost) {
  if (cost_.size() <= key) cost_.resize(key + 1, 0.0);
  cost_[key] = cost;
}

std::uint64_t CostSets::priority(std::uint32_t key) {
  return mix(key + 0x9e3779b97f4a7c15ULL);
}

bool CostSets::above(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t pa = priority(a), pb = priority(b);
  return pa != pb ? pa > pb : a > b;
}

std::uint64_t CostSets::key_hash(std::uint32_t key) {
  return mix(std::uint64_t{key} * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
}

CostSets::Set CostSets::make(std::uint32_t key, Set left, Set right) {
  const Node& l = nodes_[left];
  const Node& r = nodes_[right];
  // Summed in tree order, so a set's total depends on the set only.
  const Node n{key,
               left,
               right,
               l.size + 1 + r.size,
               l.total + cost_[key] + r.total,
               l.hash + key_hash(key) + r.hash};
  nodes_.push_back(n);
  return static_cast<Set>(nodes_.size() - 1);
}

std::pair<CostSets::Set, CostSets::Set> CostSets::split(Set set, std::uint32_t key) {
  if (set == kEmpty) return {kEmpty, kEmpty};
  const Node n = nodes_[set];
  // A side that comes back whole is returned as is, without a lookup.
  if (n.key < key) {
    const auto [low, high] = split(n.right, key);
    return {low == n.right ? set : make(n.key, n.left, low), high};
  }
  if (key < n.key) {
    const auto [low, high] = split(n.left, key);
    return {low, high == n.left ? set : make(n.key, high, n.right)};
  }
  return {n.left, n.right};
}

CostSets::Set CostSets::insert(Set set, std::uint32_t key) {
  // A fresh one-key set is never in the memo of unions: skip it.
  return unite_trees(set, make(key, kEmpty, kEmpty));
}

CostSets::Set CostSets::unite(Set a, Set b) {
  if (b == kEmpty || same(a, b)) return a;
  if (a == kEmpty) return b;
  // Nodes of one class often unite the same child sets (commuted operands,
  // shared subterms): remember the unions asked for.
  const std::uint64_t pair = a < b ? std::uint64_t{a} << 32 | b : std::uint64_t{b} << 32 | a;
  auto [it, fresh] = unions_.try_emplace(pair, kEmpty);
  if (!fresh) return it->second;
  const Set result = unite_trees(a, b);
  it->second = result;  // unite_trees does not touch the memo
  return result;
}

CostSets::Set CostSets::unite_trees(Set a, Set b) {
  if (b == kEmpty || same(a, b)) return a;
  if (a == kEmpty) return b;
  if (above(nodes_[b].key, nodes_[a].key)) std::swap(a, b);
  // a's key is the root of the union: it splits b.
  const Node n = nodes_[a];
  const auto [low, high] = split(b, n.key);
  const Set left = unite_trees(n.left, low);
  const Set right = unite_trees(n.right, high);
  return left == n.left && right == n.right ? a : make(n.key, left, right);
}

}  // namespace eqsat::egraph
