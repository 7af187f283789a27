#include "egraph/enode.hpp"

#include <algorithm>

namespace eqsat::egraph {

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
