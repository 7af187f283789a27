// Tests of HashCons (egraph/hashcons.hpp): finds, inserts and erases agree
// with a std::map through growth, colliding hashes and backward shifts.
#include "egraph/hashcons.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

using eqsat::egraph::HashCons;

namespace {

// Contents are small integers; id i holds content[i]. The hash keeps few
// distinct home slots (hashes collide), so probes run long and erases move
// entries back across the table's end.
struct Model {
  std::vector<std::uint32_t> content;
  static std::size_t hash(std::uint32_t c) { return (std::size_t{c % 97} * 0x9e3779b9u) << 32; }
};

}  // namespace

TEST_CASE("HashCons agrees with a map under random inserts and erases") {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    HashCons table(16);
    Model m;
    std::map<std::uint32_t, std::uint32_t> want;  // content -> id
    for (int step = 0; step < 4000; ++step) {
      const std::uint32_t c = rng() % 600;
      auto same = [&](std::uint32_t id) { return m.content[id] == c; };
      if (rng() % 3 != 0) {
        const std::uint32_t id = static_cast<std::uint32_t>(m.content.size());
        m.content.push_back(c);
        const std::uint32_t got = table.find_or_insert(Model::hash(c), id, same);
        auto it = want.find(c);
        if (it == want.end()) {
          CHECK(got == HashCons::kNone);
          want.emplace(c, id);
        } else {
          CHECK(got == it->second);
        }
      } else if (auto it = want.find(c); it != want.end()) {
        CHECK(table.erase(Model::hash(c), it->second));
        CHECK_FALSE(table.erase(Model::hash(c), it->second));
        want.erase(it);
      }
      REQUIRE(table.size() == want.size());
    }
    for (std::uint32_t c = 0; c < 600; ++c) {
      auto it = want.find(c);
      const std::uint32_t got =
          table.find(Model::hash(c), [&](std::uint32_t id) { return m.content[id] == c; });
      CHECK(got == (it == want.end() ? HashCons::kNone : it->second));
    }
  }
}

TEST_CASE("HashCons grows past three quarters full and keeps every entry") {
  HashCons table(16);
  std::vector<std::uint32_t> content;
  for (std::uint32_t i = 0; i < 10000; ++i) {
    content.push_back(i);
    const std::size_t h = std::size_t{i} * 0x9e3779b97f4a7c15ULL;
    CHECK(table.find_or_insert(h, i, [&](std::uint32_t id) { return content[id] == i; }) ==
          HashCons::kNone);
  }
  CHECK(table.size() == 10000);
  CHECK(table.bytes() >= 10000 * 8 * 4 / 3);
  for (std::uint32_t i = 0; i < 10000; ++i) {
    const std::size_t h = std::size_t{i} * 0x9e3779b97f4a7c15ULL;
    CHECK(table.find(h, [&](std::uint32_t id) { return content[id] == i; }) == i);
  }
}
