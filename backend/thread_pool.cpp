#include "thread_pool.hpp"

#include "blas_start.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/resource.h>

#ifdef EQSAT_HAVE_OPENBLAS
extern "C" void openblas_set_num_threads(int);
#endif

namespace eqsat::backend {

std::optional<std::uint64_t> detail::address_space_limit() {
  std::optional<std::uint64_t> limit;
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit r {};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      limit = std::min<std::uint64_t>(limit.value_or(UINT64_MAX), r.rlim_cur);
  }
  return limit;
}

namespace {

// Set while a thread runs a part of a parallel_for: nested ones run inline.
thread_local bool t_inside = false;

// Spins for up to kSpin checking `ready`, then returns whether it held.
// A worker that just finished a part, or a caller waiting for the last
// part, is usually needed again within microseconds (a loop step's next
// product): spinning that long saves the two futex wake-ups a job would
// otherwise cost (on this VM 10-50 us each, more than an LSTM step's
// product), and sleeping after it leaves idle cores to other processes.
constexpr auto kSpin = std::chrono::microseconds(50);
template <class F>
bool spin_until(const F& ready) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (ready()) return true;
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

// A job is a number of ranges that the workers and the caller take in
// turn. Its parts are handed out through one atomic ticket holding the
// job's generation, its part count and the next part, so a thread that
// claims a part (a compare-and-swap on the ticket) knows it belongs to the
// job it read, and the job's description cannot change before that part
// is done. Workers spin briefly after a job (spin_until), then sleep on a
// condition variable. One job at a time: a caller that finds the pool
// busy runs its job alone.
class Pool {
 public:
  explicit Pool(int threads) {
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    detail::spawn_up_to(threads - 1, [this] { workers_.emplace_back([this] { work(); }); });
  }
  // The threads jobs run on, the caller included.
  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

  bool run(detail::RangeTask task, const void* context, std::int64_t n, int parts) {
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    parts = std::min(parts, 0xffff);  // the ticket's field
    task_ = task;
    context_ = context;
    n_ = n;
    error_ = nullptr;
    left_.store(parts);
    {
      std::lock_guard lock(mutex_);
      ++generation_;
      ticket_.store(generation_ << 32 | static_cast<std::uint64_t>(parts) << 16);
    }
    wake_.notify_all();
    take_parts();
    if (!spin_until([&] { return left_.load() == 0; })) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return left_.load() == 0; });
    }
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  static std::uint64_t generation_of(std::uint64_t ticket) { return ticket >> 32; }

  // Claims the next part of the job in progress: false when every part
  // is taken; else its index and the job's part count.
  bool claim(std::int64_t& part, std::int64_t& parts) {
    std::uint64_t t = ticket_.load();
    for (;;) {
      part = static_cast<std::int64_t>(t & 0xffff);
      parts = static_cast<std::int64_t>(t >> 16 & 0xffff);
      if (part >= parts) return false;
      if (ticket_.compare_exchange_weak(t, t + 1)) return true;
    }
  }

  // Runs parts of the current job until none is left.
  void take_parts() {
    t_inside = true;
    for (std::int64_t i, parts; claim(i, parts);) {
      const std::int64_t begin = n_ * i / parts, end = n_ * (i + 1) / parts;
      try {
        task_(context_, begin, end);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      if (left_.fetch_sub(1) == 1) {
        std::lock_guard lock(mutex_);
        done_.notify_all();
      }
    }
    t_inside = false;
  }

  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      auto fresh = [&] { return generation_of(ticket_.load()) != seen; };
      if (!spin_until([&] { return fresh() || stop_.load(); })) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_.load() || fresh(); });
      }
      if (stop_.load()) return;
      seen = generation_of(ticket_.load());
      take_parts();
    }
  }

  std::mutex busy_;   // held by the caller of the job in progress
  std::mutex mutex_;  // orders sleeping and waking
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stop_ = false;
  std::uint64_t generation_ = 0;  // the caller's count of jobs
  // generation << 32 | parts << 16 | next part
  std::atomic<std::uint64_t> ticket_ = 0;
  detail::RangeTask task_ = nullptr;
  const void* context_ = nullptr;
  std::int64_t n_ = 0;
  std::atomic<int> left_{0};
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool p(detail::requested_threads(std::getenv("EQSAT_NUM_THREADS"),
                                          std::thread::hardware_concurrency()));
  return p;
}

}  // namespace

int num_threads() {
  static const int n = [] {
    const int threads = pool().threads();
#ifdef EQSAT_HAVE_OPENBLAS
    if (!detail::own_blas())  // the executable's own: one thread (dot.cpp)
      openblas_set_num_threads(detail::blas_threads(threads, detail::address_space_limit()));
#endif
    return threads;
  }();
  return n;
}

namespace detail {

int requested_threads(const char* env, unsigned cores) {
  const long n = std::max<long>(cores, 1);
  if (env == nullptr) return static_cast<int>(n);
  long v = 0;
  const char* end = env + std::strlen(env);
  const auto [at, error] = std::from_chars(env, end, v);
  if (error == std::errc::result_out_of_range && *env != '-') return static_cast<int>(4 * n);
  if (error != std::errc() || at != end || v < 1) return static_cast<int>(n);
  return static_cast<int>(std::min(v, 4 * n));
}

int blas_threads(int threads, std::optional<std::uint64_t> address_limit) {
  constexpr std::uint64_t kBufferBytes = std::uint64_t{128} << 20;
  if (!address_limit) return threads;
  const std::uint64_t fit = *address_limit / 4 / kBufferBytes;
  return static_cast<int>(std::clamp<std::uint64_t>(fit, 1, static_cast<std::uint64_t>(threads)));
}

int spawn_up_to(int n, const std::function<void()>& spawn) {
  for (int i = 0; i < n; ++i) {
    try {
      spawn();
    } catch (const std::system_error&) {
      return i;
    }
  }
  return std::max(n, 0);
}

void run_parallel(RangeTask task, const void* context, std::int64_t n, int parts) {
  if (t_inside || !pool().run(task, context, n, parts)) task(context, 0, n);
}

}  // namespace detail

}  // namespace eqsat::backend
