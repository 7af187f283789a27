// Vector growth by half instead of doubling for the e-graph's per-id
// arrays: they hold most of its memory, and doubling leaves up to half of
// each unused.
#pragma once

#include <cstddef>
#include <vector>

namespace eqsat::egraph {

// Makes room for one more element, growing capacity by 50% when full.
template <class T, class A>
void reserve_one_more(std::vector<T, A>& v) {
  if (v.size() == v.capacity()) v.reserve(v.capacity() + v.capacity() / 2 + 16);
}

}  // namespace eqsat::egraph
