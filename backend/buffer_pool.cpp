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
  charge(static_cast<std::uint64_t>(bytes));
  // Every kernel writes its result whole (a buffer from a bin above holds
  // an earlier value too): no zero pass needed.
  return ops::Array::uninitialized(dtype, shape);
}

void BufferPool::charge(std::uint64_t size) {
  BufferPool& owner = parent_ ? *parent_ : *this;  // the pool with the counts and the limit
  if (owner.try_charge(size)) return;
  std::lock_guard lock(owner.mutex_);
  throw RuntimeError(fmt::format(
      "out of memory: a value of {} bytes would bring the run's values to {} bytes, past the "
      "memory limit of {} bytes; raise --memory-limit",
      size, owner.run_bytes_ + size, *owner.limit_));
}

bool BufferPool::try_charge(std::uint64_t bytes) {
  if (parent_) return parent_->try_charge(bytes);
  std::lock_guard lock(mutex_);
  if (limit_ && run_bytes_ + bytes > *limit_) return false;
  ++allocations_;
  bytes_allocated_ += bytes;
  run_bytes_ += bytes;
  return true;
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
