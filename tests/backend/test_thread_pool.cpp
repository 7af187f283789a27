// parallel_for: every index once, ranges no shorter than the grain, small
// ranges on the calling thread, nesting inline, exceptions reach the caller.
#include "backend/thread_pool.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
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

TEST_CASE("past one part a thread, the parts are a multiple of the thread count, sizes within 1") {
  const int threads = backend::num_threads();
  for (std::int64_t n : {16, 17, 100, 1000}) {
    for (std::int64_t grain : {1, 3, 5, 7}) {
      INFO("n " << n << ", grain " << grain);
      std::mutex m;
      std::vector<std::int64_t> sizes;
      backend::parallel_for(n, grain, [&](std::int64_t b, std::int64_t e) {
        std::lock_guard lock(m);
        sizes.push_back(e - b);
      });
      const auto parts = static_cast<std::int64_t>(sizes.size());
      if (parts > threads) CHECK(parts % threads == 0);
      CHECK(*std::ranges::max_element(sizes) - *std::ranges::min_element(sizes) <= 1);
      CHECK(*std::ranges::min_element(sizes) >= std::min(grain, n));
    }
  }
}

TEST_CASE("back-to-back jobs from two callers each cover every index exactly once") {
  // Jobs follow each other faster than a worker falls asleep, so workers
  // claim parts of a job while the next is posted; the second caller finds
  // the pool busy at times and runs its job alone.
  auto caller = [](int jobs, std::int64_t n, std::atomic<bool>& ok) {
    std::vector<int> hits(n);
    for (int j = 0; j < jobs; ++j) {
      std::fill(hits.begin(), hits.end(), 0);
      backend::parallel_for(n, 1, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) ++hits[i];
      });
      if (std::any_of(hits.begin(), hits.end(), [](int h) { return h != 1; })) ok = false;
    }
  };
  std::atomic<bool> ok_a = true, ok_b = true;
  std::thread other([&] { caller(2000, 37, ok_b); });
  caller(2000, 101, ok_a);
  other.join();
  CHECK(ok_a.load());
  CHECK(ok_b.load());
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

TEST_CASE("EQSAT_NUM_THREADS is capped at four threads a core - bad values give the cores") {
  using backend::detail::requested_threads;
  CHECK(requested_threads(nullptr, 2) == 2);
  CHECK(requested_threads("1", 2) == 1);
  CHECK(requested_threads("6", 2) == 6);
  CHECK(requested_threads("64", 2) == 8);
  CHECK(requested_threads("1000000", 16) == 64);
  CHECK(requested_threads("99999999999999999999999", 2) == 8);
  for (const char* bad : {"0", "-3", "-99999999999999999999999", "", "4x", "two", " 4"})
    CHECK(requested_threads(bad, 3) == 3);
  CHECK(requested_threads(nullptr, 0) == 1);  // cores unknown
}

TEST_CASE("a thread the OS refuses stops the pool's growth - it runs with those it has") {
  using backend::detail::spawn_up_to;
  int made = 0;
  const auto refuse_after = [&](int k) {
    return [&made, k] {
      if (made == k)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      ++made;
    };
  };
  CHECK(spawn_up_to(63, refuse_after(5)) == 5);
  made = 0;
  CHECK(spawn_up_to(63, refuse_after(0)) == 0);
  made = 0;
  CHECK(spawn_up_to(4, refuse_after(100)) == 4);
  CHECK(made == 4);
}

TEST_CASE("under an address-space limit OpenBLAS gets the threads whose buffers fit a quarter") {
  using backend::detail::blas_threads;
  CHECK(blas_threads(8, std::nullopt) == 8);
  CHECK(blas_threads(8, std::uint64_t{600} << 20) == 1);  // ulimit -v 600000: at least one
  CHECK(blas_threads(8, std::uint64_t{2} << 30) == 4);
  CHECK(blas_threads(8, std::uint64_t{6} << 30) == 8);
  CHECK(blas_threads(64, std::uint64_t{6} << 30) == 12);
}
