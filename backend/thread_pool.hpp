// The executor's worker threads: one pool per process, created on first
// use, of `num_threads()` threads in all (the caller included), which
// elementwise, reduction, softmax and matrix kernels share.
// EQSAT_NUM_THREADS=N limits it (1: everything on the calling thread); the
// default is the number of cores. OpenBLAS's and oneDNN's thread counts
// are set by dot.cpp (one, their work split on this pool, where the
// executable owns its OpenBLAS).
//
//   parallel_for(n, 1 << 15, [&](std::int64_t begin, std::int64_t end) { ... });
//
// splits [0, n) into contiguous ranges, none shorter than the grain and at
// most four per thread, which the threads take in turn (so a thread the
// OS runs late leaves its share to the others); small n (below two grains)
// runs on the calling thread alone. A parallel_for inside a
// parallel_for, or while another thread uses the pool, runs inline.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace eqsat::backend {

// Threads kernels may use, the calling one included (>= 1).
int num_threads();

namespace detail {
using RangeTask = void (*)(const void* context, std::int64_t begin, std::int64_t end);
// Runs task(context, ranges[i], ranges[i + 1]) for i < parts on the pool.
void run_parallel(RangeTask task, const void* context, std::int64_t n, int parts);
}  // namespace detail

template <class F>
void parallel_for(std::int64_t n, std::int64_t grain, const F& f) {
  const std::int64_t most = n / std::max<std::int64_t>(grain, 1);
  const int threads = num_threads();
  const int parts = static_cast<int>(std::min<std::int64_t>(4 * threads, most));
  if (threads == 1 || parts <= 1) {
    if (n > 0) f(std::int64_t{0}, n);
    return;
  }
  detail::run_parallel([](const void* context, std::int64_t begin,
                          std::int64_t end) { (*static_cast<const F*>(context))(begin, end); },
                       &f, n, parts);
}

}  // namespace eqsat::backend
