// E-nodes: an interned operator symbol, an opaque payload the language
// interprets, and the e-classes of its children. `ENodeRef` is a view of an
// e-node stored in an e-graph (or of a key being looked up).
#pragma once

#include "egraph/id.hpp"
#include "egraph/symbol.hpp"

#include <cstdint>
#include <span>

namespace eqsat::egraph {

struct ENodeRef {
  Symbol op;
  Payload payload = 0;
  std::span<const EClassId> children;

  bool is_leaf() const { return children.empty(); }
};

// The hash of an e-node's content (operator, payload, children); stable
// across runs and platforms. Inline: every hash-cons probe computes one.
inline std::size_t hash_enode(Symbol op, Payload payload, std::span<const EClassId> children) {
  std::uint64_t h =
      (static_cast<std::uint64_t>(op.id()) << 32 | children.size()) * 0x9e3779b97f4a7c15ULL;
  h ^= payload * 0xbf58476d1ce4e5b9ULL;
  constexpr std::uint64_t kMix = 0x94d049bb133111ebULL;
  // Two children or fewer (nearly every e-node) in straight-line code.
  const std::size_t n = children.size();
  if (n >= 1) h = (h ^ children[0].value()) * kMix;
  if (n >= 2) h = (h ^ children[1].value()) * kMix;
  for (std::size_t i = 2; i < n; ++i) h = (h ^ children[i].value()) * kMix;
  // One wide product folded: the hash-cons's table reads both the low and
  // the high bits, and each depends on every bit of h.
  const unsigned __int128 m = static_cast<unsigned __int128>(h) * 0xff51afd7ed558ccdULL;
  return static_cast<std::size_t>(static_cast<std::uint64_t>(m) ^
                                  static_cast<std::uint64_t>(m >> 64));
}

}  // namespace eqsat::egraph
