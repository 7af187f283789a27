// Sorting a list that is a few sorted runs one after the other, as a
// class's e-node and parent lists are after a rebuild's merges: each merge
// appends the other class's sorted list, and new e-nodes' ids are appended
// in increasing order. Merging the runs costs linear time where a sort
// costs n log n comparisons (each of e-nodes by content loads two records).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace eqsat::egraph {

// Sorts [first, last) by `less`, merging its sorted runs when there are at
// most `max_runs` of them and sorting it outright otherwise. `scratch` is
// reused storage.
template <class T, class Less>
void sort_runs(T* first, T* last, Less less, std::vector<T>& scratch, std::size_t max_runs = 4) {
  T* mid = std::is_sorted_until(first, last, less);
  for (std::size_t runs = 2; mid != last; ++runs) {
    if (runs > max_runs) {
      std::sort(first, last, less);
      return;
    }
    T* end = std::is_sorted_until(mid, last, less);
    // Merge [first, mid) (moved to scratch) and [mid, end) into [first, end):
    // the write position never passes the unread part of the second run.
    scratch.assign(first, mid);
    const T* a = scratch.data();
    const T* a_end = a + scratch.size();
    T* b = mid;
    T* out = first;
    while (a != a_end && b != end) *out++ = less(*b, *a) ? *b++ : *a++;
    while (a != a_end) *out++ = *a++;
    mid = end;
  }
}

}  // namespace eqsat::egraph
