// IdList: a growable array of 32-bit ids in 16 bytes (pointer, size,
// capacity), for the per-class e-node and parent lists, of which an e-graph
// holds one pair per class id.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace eqsat::egraph {

template <class Id>
class IdList {
 public:
  IdList() = default;
  IdList(const IdList&) = delete;
  IdList& operator=(const IdList&) = delete;
  IdList(IdList&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
  }
  IdList& operator=(IdList&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
  ~IdList() { std::free(data_); }

  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint32_t capacity() const { return cap_; }
  Id* begin() { return data_; }
  Id* end() { return data_ + size_; }
  const Id* begin() const { return data_; }
  const Id* end() const { return data_ + size_; }
  Id& operator[](std::uint32_t i) { return data_[i]; }
  const Id& operator[](std::uint32_t i) const { return data_[i]; }
  Id back() const { return data_[size_ - 1]; }
  operator std::span<const Id>() const { return {data_, size_}; }

  void push_back(Id id) {
    if (size_ == cap_) grow(size_ + 1);
    data_[size_++] = id;
  }
  void append(std::span<const Id> ids) {
    if (size_ + ids.size() > cap_) grow(size_ + static_cast<std::uint32_t>(ids.size()));
    if (!ids.empty()) std::memcpy(data_ + size_, ids.data(), ids.size() * sizeof(Id));
    size_ += static_cast<std::uint32_t>(ids.size());
  }
  // Keeps the first n elements.
  void truncate(std::uint32_t n) { size_ = n; }
  // Frees the storage.
  void release() {
    std::free(data_);
    data_ = nullptr;
    size_ = cap_ = 0;
  }

 private:
  void grow(std::uint32_t need) {
    std::uint32_t cap = cap_ < 2 ? 2 : cap_ + cap_ / 2;
    if (cap < need) cap = need;
    void* p = std::realloc(data_, cap * sizeof(Id));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<Id*>(p);
    cap_ = cap;
  }

  Id* data_ = nullptr;
  std::uint32_t size_ = 0, cap_ = 0;
};

}  // namespace eqsat::egraph
