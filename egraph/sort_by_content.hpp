// Sorting a class's e-nodes by content (operator, payload, arity,
// children, id): with up to two children, each e-node becomes a flat key
// first, so the sort reads each record once instead of twice per
// comparison.
#pragma once

#include "egraph/id.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

namespace eqsat::egraph {

// An e-node of up to two children as a sort key, in the order of
// EGraph::less_by_content (operator, payload, arity, children, id;
// absent children are 0).
struct ContentKey {
  std::uint32_t op;
  Payload payload;
  std::uint32_t arity, kid0, kid1, id;
  friend bool operator<(const ContentKey& a, const ContentKey& b) {
    return std::tie(a.op, a.payload, a.arity, a.kid0, a.kid1, a.id) <
           std::tie(b.op, b.payload, b.arity, b.kid0, b.kid1, b.id);
  }
};

// Sorts e-node ids by content; `less` (reading the records) when one has
// more children than a record holds inline.
template <class Record, class Less>
void sort_by_content(ENodeId* first, ENodeId* last, const std::vector<Record>& records,
                     std::vector<ContentKey>& keys, Less less) {
  keys.clear();
  for (ENodeId* p = first; p != last; ++p) {
    const Record& r = records[p->index()];
    if (r.arity > 2) {
      std::sort(first, last, less);
      return;
    }
    keys.push_back({r.op, r.payload, r.arity, r.arity > 0 ? r.inline_kids[0].value() : 0u,
                    r.arity > 1 ? r.inline_kids[1].value() : 0u, p->value()});
  }
  std::sort(keys.begin(), keys.end());
  for (const ContentKey& k : keys) *first++ = ENodeId(k.id);
}

}  // namespace eqsat::egraph
