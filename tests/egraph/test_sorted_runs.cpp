// sort_runs (egraph/sorted_runs.hpp): lists made of sorted runs, as a
// rebuild leaves parent lists, come out as a stable sort leaves them.
#include "egraph/sorted_runs.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

using eqsat::egraph::sort_runs;

TEST_CASE("sort_runs sorts lists of sorted runs stably like std::stable_sort") {
  std::mt19937 rng(3);
  std::vector<std::pair<int, int>> scratch;
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  for (int trial = 0; trial < 300; ++trial) {
    // Up to 8 runs, each ascending in its key; keys repeat across runs, and
    // the second member records the original position.
    std::vector<std::pair<int, int>> list;
    const int runs = static_cast<int>(rng() % 8);
    for (int r = 0; r < runs; ++r) {
      int key = static_cast<int>(rng() % 5);
      const int len = static_cast<int>(rng() % 12);
      for (int i = 0; i < len; ++i) {
        list.emplace_back(key, static_cast<int>(list.size()));
        key += static_cast<int>(rng() % 3);
      }
    }
    if (trial % 10 == 0) std::shuffle(list.begin(), list.end(), rng);  // any order at all
    std::vector<std::pair<int, int>> want = list;
    std::stable_sort(want.begin(), want.end(), by_key);
    sort_runs(list.data(), list.data() + list.size(), by_key, scratch);
    INFO("trial " << trial);
    CHECK(list == want);
  }
}
