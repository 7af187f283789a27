// E-nodes: an interned operator symbol, an opaque payload the language
// interprets, and the e-classes of its children. `ENodeRef` is a view of an
// e-node stored in an e-graph (or of a key being looked up).
#pragma once

#include "egraph/id.hpp"
#include "egraph/symbol.hpp"

#include <span>

namespace eqsat::egraph {

struct ENodeRef {
  Symbol op;
  Payload payload = 0;
  std::span<const EClassId> children;

  bool is_leaf() const { return children.empty(); }
};

// The hash of an e-node's content (operator, payload, children); stable
// across runs and platforms.
std::size_t hash_enode(Symbol op, Payload payload, std::span<const EClassId> children);

// Strict weak order on content: operator, payload, arity, then children.
bool enode_less(const ENodeRef& a, const ENodeRef& b);
bool enode_equal(const ENodeRef& a, const ENodeRef& b);

}  // namespace eqsat::egraph
