// BufferPool: the executor's cache of free buffers. A value's buffer goes
// back to the pool when the value dies and is handed out again for the next
// value of the same dtype and element count, so a program that runs again
// (or a loop body on its next step) allocates nothing new. A loop run as
// blocks of rows on several threads (scan_runtime.cpp) gives each block a
// pool of its own, which counts its new buffers in the program's pool: so
// which buffer a value gets, and the bytes a run takes, do not depend on
// how the threads interleave.
#pragma once

#include "ops/array.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace eqsat::backend {

class BufferPool {
 public:
  // Makes this a block's pool: its new buffers count in `parent`'s
  // allocations, bytes and limit (nullptr: its own).
  void count_in(BufferPool* parent) { parent_ = parent; }
  // An array of this dtype and shape; its contents are unspecified.
  // Throws std::bad_alloc when it cannot be had (or its size overflows),
  // RuntimeError when a new buffer would bring this run's past the limit.
  ops::Array take(ops::DType dtype, const ops::Dims& shape);
  // Limits the bytes of new buffers one run may take (nullopt: none): the
  // memory limit checked as sizes become known at run time.
  void set_limit(std::optional<std::uint64_t> bytes) { limit_ = bytes; }
  // Counts `bytes` of memory kept outside the pool (a product's copy of
  // its b) as a new buffer of this run; false, counting nothing, when that
  // would bring the run past the limit.
  bool try_charge(std::uint64_t bytes);
  // Starts a run: its new buffers count from 0.
  void begin_run() { run_bytes_ = 0; }
  // Keeps `a`'s buffer for reuse when nothing else shares it.
  void give(ops::Array&& a);
  // Buffers allocated (not reused) so far.
  std::uint64_t allocations() const { return allocations_; }
  // Bytes of those buffers.
  std::uint64_t bytes_allocated() const { return bytes_allocated_; }
  // Frees every cached buffer.
  void clear() { free_.clear(); }

 private:
  // Free buffers of one dtype and element count. A program has few
  // distinct sizes, so a linear search beats a map (and never allocates).
  struct Bin {
    std::int64_t size;
    ops::DType dtype;
    std::vector<ops::Array> arrays;
  };
  Bin& bin(std::int64_t size, ops::DType dtype);
  // Counts a new buffer of `size` bytes in this run (throws past the
  // limit). The one call blocks make on another thread's pool: each pool's
  // buffers are taken and given by one thread at a time.
  void charge(std::uint64_t size);

  BufferPool* parent_ = nullptr;
  std::vector<Bin> free_;
  std::mutex mutex_;  // guards the counts below: blocks charge their parent
  std::uint64_t allocations_ = 0;
  std::uint64_t bytes_allocated_ = 0;
  std::uint64_t run_bytes_ = 0;
  std::optional<std::uint64_t> limit_;
};

}  // namespace eqsat::backend
