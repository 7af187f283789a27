// parallel_for: every index once, ranges no shorter than the grain, small
// ranges on the calling thread, nesting inline, exceptions reach the caller.
#include "backend/thread_pool.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace eqsat;

TEST_CASE("parallel_for covers every index exactly once") {
  for (std::int64_t n : {0, 1, 5, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(n);
    std::atomic<int> parts = 0;
    backend::parallel_for(n, 100, [&](std::int64_t b, std::int64_t e) {
      CHECK(b < e);
      ++parts;
      for (std::int64_t i = b; i < e; ++i) ++hits[i];
    });
    for (auto& h : hits) CHECK(h.load() == 1);
    CHECK(parts.load() <= 4 * backend::num_threads());
  }
}

TEST_CASE("small ranges stay on the calling thread and nested loops run inline") {
  const auto caller = std::this_thread::get_id();
  backend::parallel_for(150, 100, [&](std::int64_t b, std::int64_t e) {
    CHECK(std::this_thread::get_id() == caller);
    CHECK((b == 0 && e == 150));
  });
  std::atomic<std::int64_t> total = 0;
  backend::parallel_for(1 << 16, 1, [&](std::int64_t b, std::int64_t e) {
    backend::parallel_for(e - b, 1, [&](std::int64_t b2, std::int64_t e2) { total += e2 - b2; });
  });
  CHECK(total.load() == 1 << 16);
}

TEST_CASE("an exception in a part reaches the caller and the pool stays usable") {
  CHECK_THROWS_WITH(backend::parallel_for(1 << 16, 1,
                                          [&](std::int64_t b, std::int64_t) {
                                            if (b == 0) throw std::runtime_error("part 0");
                                          }),
                    "part 0");
  std::atomic<std::int64_t> total = 0;
  backend::parallel_for(1 << 16, 1, [&](std::int64_t b, std::int64_t e) { total += e - b; });
  CHECK(total.load() == 1 << 16);
}
