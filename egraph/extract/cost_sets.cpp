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

CostSets::CostSets() : nodes_(1), table_(1024, 0), mask_(1023) {}

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

std::uint64_t CostSets::hash(std::uint32_t key, Set left, Set right) {
  return mix((std::uint64_t{key} << 32 ^ left) * 0x9e3779b97f4a7c15ULL ^ right);
}

CostSets::Set CostSets::make(std::uint32_t key, Set left, Set right) {
  // A slot holds a node id and, above it, the high half of the node's hash,
  // so that most mismatches are rejected without reading the node.
  const std::uint64_t h = hash(key, left, right);
  const std::uint64_t tag = h & 0xffffffff00000000ULL;
  std::size_t slot = h & mask_;
  for (; table_[slot] != 0; slot = (slot + 1) & mask_) {
    if ((table_[slot] & 0xffffffff00000000ULL) != tag) continue;
    const Set id = static_cast<Set>(table_[slot]);
    const Node& n = nodes_[id];
    if (n.key == key && n.left == left && n.right == right) return id;
  }
  const Set id = static_cast<Set>(nodes_.size());
  // Summed in tree order, so a set's total depends on the set only.
  nodes_.push_back(Node{key, left, right, nodes_[left].size + 1 + nodes_[right].size,
                        nodes_[left].total + cost_[key] + nodes_[right].total});
  table_[slot] = tag | id;
  if (nodes_.size() * 4 > table_.size() * 3) grow_table();
  return id;
}

void CostSets::grow_table() {
  std::vector<std::uint64_t> old(table_.size() * 2, 0);
  old.swap(table_);
  mask_ = table_.size() - 1;
  for (std::uint64_t entry : old) {
    if (entry == 0) continue;
    const Node& n = nodes_[static_cast<Set>(entry)];
    std::size_t slot = hash(n.key, n.left, n.right) & mask_;
    while (table_[slot] != 0) slot = (slot + 1) & mask_;
    table_[slot] = entry;
  }
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
  return unite(set, make(key, kEmpty, kEmpty));
}

CostSets::Set CostSets::unite(Set a, Set b) {
  if (a == b || b == kEmpty) return a;
  if (a == kEmpty) return b;
  // Nodes of one class often unite the same child sets (commuted operands,
  // shared subterms): remember the unions asked for.
  const std::uint64_t pair = a < b ? std::uint64_t{a} << 32 | b : std::uint64_t{b} << 32 | a;
  auto [it, fresh] = unions_.try_emplace(pair, kEmpty);
  if (!fresh) return it->second;
  const Set result = unite_trees(a, b);
  unions_[pair] = result;
  return result;
}

CostSets::Set CostSets::unite_trees(Set a, Set b) {
  if (a == b || b == kEmpty) return a;
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
