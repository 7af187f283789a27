#include "buffer_pool.hpp"

namespace eqsat::backend {

ops::Array BufferPool::take(ops::DType dtype, const ops::Dims& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  auto it = free_.find({n, dtype});
  if (it != free_.end() && !it->second.empty()) {
    ops::Array a = std::move(it->second.back());
    it->second.pop_back();
    if (a.shape() != shape) a = a.reshaped(shape);
    return a;
  }
  ++allocations_;
  return ops::Array(dtype, shape);
}

void BufferPool::give(ops::Array&& a) {
  if (!a.unique()) {
    a = ops::Array();
    return;
  }
  free_[{a.size(), a.dtype()}].push_back(std::move(a));
  a = ops::Array();
}

}  // namespace eqsat::backend
