// Sorting a list that is made of sorted runs one after the other, as a
// class's parent list is after a rebuild's merges: each merge appends the
// other class's sorted list, and new e-nodes' ids are appended in
// increasing order. A natural merge sort costs n log2(runs) steps where a
// sort costs n log2(n), and one pass of comparisons for a sorted list.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace eqsat::egraph {

// Sorts [first, last) by `less` (stably), merging adjacent sorted runs pass
// by pass. `scratch` is reused storage.
template <class T, class Less>
void sort_runs(T* first, T* last, Less less, std::vector<T>& scratch) {
  if (std::is_sorted_until(first, last, less) == last) return;
  const std::size_t n = static_cast<std::size_t>(last - first);
  scratch.resize(n);
  T* src = first;
  T* dst = scratch.data();
  for (;;) {
    std::size_t runs = 0;
    T* out = dst;
    for (T* p = src; p != src + n; ++runs) {
      T* mid = std::is_sorted_until(p, src + n, less);
      T* end = mid == src + n ? mid : std::is_sorted_until(mid, src + n, less);
      out = std::merge(p, mid, mid, end, out, less);
      p = end;
    }
    std::swap(src, dst);
    if (runs == 1) break;
  }
  if (src != first) std::copy(src, src + n, first);
}

}  // namespace eqsat::egraph
