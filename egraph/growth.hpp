// Vector growth by half instead of doubling for the e-graph's per-id
// arrays: they hold most of its memory, and doubling leaves up to half of
// each unused.
#pragma once

#include <cstddef>
#include <vector>

namespace eqsat::egraph {

// Grows capacity by 50% (out of line: the common call only compares).
template <class T, class A>
[[gnu::noinline, gnu::cold]] void grow_by_half(std::vector<T, A>& v) {
  v.reserve(v.capacity() + v.capacity() / 2 + 16);
}

// Makes room for one more element, growing capacity by 50% when full.
template <class T, class A>
inline void reserve_one_more(std::vector<T, A>& v) {
  if (v.size() == v.capacity()) [[unlikely]]
    grow_by_half(v);
}

}  // namespace eqsat::egraph
