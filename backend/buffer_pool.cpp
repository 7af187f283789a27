#include "buffer_pool.hpp"

#include "runtime_error.hpp"

#include <fmt/format.h>

#include <new>

namespace eqsat::backend {

BufferPool::Bin& BufferPool::bin(std::int64_t size, ops::DType dtype) {
  for (Bin& b : free_)
    if (b.size == size && b.dtype == dtype) return b;
  return free_.emplace_back(Bin{size, dtype, {}});
}

ops::Array BufferPool::take(ops::DType dtype, const ops::Dims& shape) {
  // A size whose byte count does not fit is out of memory, not a wrap-around.
  std::int64_t n = 1, bytes = 0;
  for (auto d : shape)
    if (__builtin_mul_overflow(n, d, &n)) throw std::bad_alloc();
  if (__builtin_mul_overflow(n, static_cast<std::int64_t>(ops::dtype_size(dtype)), &bytes))
    throw std::bad_alloc();
  Bin& b = bin(n, dtype);
  if (!b.arrays.empty()) {
    ops::Array a = std::move(b.arrays.back());
    b.arrays.pop_back();
    if (a.shape() != shape) a = a.reshaped(shape);
    return a;
  }
  (parent_ ? *parent_ : *this).charge(static_cast<std::uint64_t>(bytes));
  // Every kernel writes its result whole (a buffer from a bin above holds
  // an earlier value too): no zero pass needed.
  return ops::Array::uninitialized(dtype, shape);
}

void BufferPool::charge(std::uint64_t size) {
  std::lock_guard lock(mutex_);
  if (limit_ && run_bytes_ + size > *limit_)
    throw RuntimeError(fmt::format(
        "out of memory: a value of {} bytes would bring the run's values to {} bytes, past the "
        "memory limit of {} bytes; raise --memory-limit",
        size, run_bytes_ + size, *limit_));
  ++allocations_;
  bytes_allocated_ += size;
  run_bytes_ += size;
}

void BufferPool::give(ops::Array&& a) {
  if (!a.unique()) {
    a = ops::Array();
    return;
  }
  bin(a.size(), a.dtype()).arrays.push_back(std::move(a));
  a = ops::Array();
}

}  // namespace eqsat::backend
