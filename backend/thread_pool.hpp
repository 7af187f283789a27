// The executor's worker threads: one pool per process, created on first
// use, of `num_threads()` threads in all (the caller included), which
// elementwise, reduction, softmax and matrix kernels share.
// EQSAT_NUM_THREADS=N sets it (1: everything on the calling thread), at
// most 4 threads a core; the default is the number of cores. A thread the
// OS refuses to create (a process or address-space limit) is done without:
// the pool runs with those it has. OpenBLAS, when the executor uses it, is
// limited to the same number, and fewer under an address-space limit
// (blas_threads), unless it is the executable's own copy (own_blas,
// blas_start.hpp): then dot.cpp runs it single-threaded and splits its
// work on this pool.
//
//   parallel_for(n, 1 << 15, [&](std::int64_t begin, std::int64_t end) { ... });
//
// splits [0, n) into contiguous ranges, none shorter than the grain and at
// most four per thread, which the threads take in turn (so a thread the
// OS runs late leaves its share to the others); past one per thread, their
// count is a multiple of the thread count; small n (below two grains)
// runs on the calling thread alone. A parallel_for inside a
// parallel_for, or while another thread uses the pool, runs inline.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>

namespace eqsat::backend {

// Threads kernels may use, the calling one included (>= 1).
int num_threads();

namespace detail {
// The number of threads EQSAT_NUM_THREADS (`env`, null when unset) asks
// for on a machine of `cores` cores: a whole number from 1 up, capped at 4
// per core; anything else (unset, 0, negative, not a number) gives `cores`.
int requested_threads(const char* env, unsigned cores);
// The threads OpenBLAS may use, of the pool's `threads`, when the
// process's address space is limited to `address_limit` bytes (nullopt:
// unlimited): each OpenBLAS thread maps a buffer of 128 MiB and retries
// forever when it cannot, so the threads get a quarter of the limit at
// most (at least 1).
int blas_threads(int threads, std::optional<std::uint64_t> address_limit);
// The smaller of the address-space and data limits (ulimit -v, -d), or
// nullopt when neither is set.
std::optional<std::uint64_t> address_space_limit();
// Calls `spawn` up to `n` times and stops at the first that throws
// std::system_error (the OS refused a thread); returns how many succeeded.
int spawn_up_to(int n, const std::function<void()>& spawn);

using RangeTask = void (*)(const void* context, std::int64_t begin, std::int64_t end);
// Runs task(context, ranges[i], ranges[i + 1]) for i < parts on the pool.
void run_parallel(RangeTask task, const void* context, std::int64_t n, int parts);
}  // namespace detail

template <class F>
void parallel_for(std::int64_t n, std::int64_t grain, const F& f) {
  const std::int64_t most = n / std::max<std::int64_t>(grain, 1);
  const int threads = num_threads();
  int parts = static_cast<int>(std::min<std::int64_t>(4 * threads, most));
  // A multiple of the thread count, so that threads running alike take
  // alike shares: 16 rows in 5 parts left one thread 10 rows and the other
  // 6 (an LSTM cell's half, at each step).
  if (parts > threads) parts -= parts % threads;
  if (threads == 1 || parts <= 1) {
    if (n > 0) f(std::int64_t{0}, n);
    return;
  }
  detail::run_parallel([](const void* context, std::int64_t begin,
                          std::int64_t end) { (*static_cast<const F*>(context))(begin, end); },
                       &f, n, parts);
}

}  // namespace eqsat::backend
