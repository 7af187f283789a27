#include "egraph/enode.hpp"

#include <algorithm>

namespace eqsat::egraph {
namespace {

inline std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::size_t hash_enode(Symbol op, Payload payload, std::span<const EClassId> children) {
  std::uint64_t h =
      (static_cast<std::uint64_t>(op.id()) << 32 | children.size()) * 0x9e3779b97f4a7c15ULL;
  h ^= payload * 0xbf58476d1ce4e5b9ULL;
  for (EClassId c : children) h = (h ^ c.value()) * 0x94d049bb133111ebULL;
  return static_cast<std::size_t>(mix(h));
}

bool enode_less(const ENodeRef& a, const ENodeRef& b) {
  if (a.op != b.op) return a.op < b.op;
  if (a.payload != b.payload) return a.payload < b.payload;
  if (a.children.size() != b.children.size()) return a.children.size() < b.children.size();
  return std::lexicographical_compare(a.children.begin(), a.children.end(), b.children.begin(),
                                      b.children.end());
}

bool enode_equal(const ENodeRef& a, const ENodeRef& b) {
  return a.op == b.op && a.payload == b.payload &&
         std::equal(a.children.begin(), a.children.end(), b.children.begin(), b.children.end());
}

}  // namespace eqsat::egraph
