// Tests of UnionFind: fresh sets, links, path compression, flattening.
#include "egraph/union_find.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace eqsat::egraph;

TEST_CASE("union-find keeps the partition of a naive labelling") {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    UnionFind uf;
    std::vector<int> label;
    for (int i = 0; i < 200; ++i) {
      if (label.size() < 2 || rng() % 3 == 0) {
        CHECK(uf.make_set().index() == label.size());
        label.push_back(static_cast<int>(label.size()));
        continue;
      }
      EClassId a = uf.find_compress(EClassId(rng() % label.size()));
      EClassId b = uf.find(EClassId(rng() % label.size()));
      if (a == b) continue;
      uf.link(a, b);
      int from = label[b.index()], to = label[a.index()];
      for (int& l : label) l = l == from ? to : l;
    }
    uf.flatten();
    for (std::size_t i = 0; i < label.size(); ++i) {
      for (std::size_t j = 0; j < label.size(); ++j) {
        REQUIRE((uf.find(EClassId(i)) == uf.find(EClassId(j))) == (label[i] == label[j]));
      }
    }
  }
}
