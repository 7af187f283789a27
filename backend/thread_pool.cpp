#include "thread_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace eqsat::backend {

namespace {

int threads_from_environment() {
  int n = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* s = std::getenv("EQSAT_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (end != s && *end == '\0' && v >= 1) n = static_cast<int>(std::min<long>(v, 1024));
  }
  return std::max(n, 1);
}

// Set while a thread runs a part of a parallel_for: nested ones run inline.
thread_local bool t_inside = false;

// Workers sleep on a condition variable between jobs; a job is a number
// of ranges that the workers and the caller take in turn. One job at a
// time: a caller that finds the pool busy runs its job alone.
class Pool {
 public:
  explicit Pool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
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
    {
      std::lock_guard lock(mutex_);
      task_ = task;
      context_ = context;
      n_ = n;
      parts_ = parts;
      next_.store(0);
      left_.store(parts);
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    take_parts();
    {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return left_.load() == 0; });
    }
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  // Runs parts of the current job until none is left.
  void take_parts() {
    t_inside = true;
    for (int i; (i = next_.fetch_add(1)) < parts_;) {
      const std::int64_t begin = n_ * i / parts_, end = n_ * (i + 1) / parts_;
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
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      take_parts();
    }
  }

  std::mutex busy_;   // held by the caller of the job in progress
  std::mutex mutex_;  // guards the job's description and the generation
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  bool stop_ = false;
  std::uint64_t generation_ = 0;
  detail::RangeTask task_ = nullptr;
  const void* context_ = nullptr;
  std::int64_t n_ = 0;
  int parts_ = 0;
  std::atomic<int> next_{0}, left_{0};
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool p(num_threads());
  return p;
}

}  // namespace

int num_threads() {
  static const int n = threads_from_environment();  // OpenBLAS's: dot.cpp
  return n;
}

namespace detail {

void run_parallel(RangeTask task, const void* context, std::int64_t n, int parts) {
  if (t_inside || !pool().run(task, context, n, parts)) task(context, 0, n);
}

}  // namespace detail

}  // namespace eqsat::backend
