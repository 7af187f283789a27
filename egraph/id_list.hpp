// IdList: a growable array of 32-bit ids in 16 bytes, for the per-class
// e-node and parent lists (one pair per class id). Up to two ids live in the
// list itself, so most classes never allocate.
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
  static_assert(sizeof(Id) == 4);
  static constexpr std::uint32_t kSmall = 2;

 public:
  IdList() = default;
  IdList(const IdList&) = delete;
  IdList& operator=(const IdList&) = delete;
  IdList(IdList&& o) noexcept { steal(o); }
  IdList& operator=(IdList&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~IdList() { release(); }

  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::uint32_t capacity() const { return cap_ == 0 ? kSmall : cap_; }
  // Bytes allocated outside the list itself.
  std::size_t heap_bytes() const { return cap_ * sizeof(Id); }
  Id* begin() { return data(); }
  Id* end() { return data() + size_; }
  const Id* begin() const { return data(); }
  const Id* end() const { return data() + size_; }
  Id& operator[](std::uint32_t i) { return data()[i]; }
  const Id& operator[](std::uint32_t i) const { return data()[i]; }
  Id back() const { return data()[size_ - 1]; }
  operator std::span<const Id>() const { return {data(), size_}; }

  void push_back(Id id) {
    if (size_ == capacity()) grow(size_ + 1);
    data()[size_++] = id;
  }
  void append(std::span<const Id> ids) {
    if (size_ + ids.size() > capacity()) grow(size_ + static_cast<std::uint32_t>(ids.size()));
    if (!ids.empty()) std::memcpy(data() + size_, ids.data(), ids.size() * sizeof(Id));
    size_ += static_cast<std::uint32_t>(ids.size());
  }
  // Keeps the first n elements.
  void truncate(std::uint32_t n) { size_ = n; }
  // Gives back heap storage when under half of it is used (after a
  // rebuild dropped duplicates), keeping a quarter of slack for growth.
  void shrink_if_sparse() {
    if (cap_ == 0 || size_ * 2 >= cap_) return;
    std::uint32_t cap = size_ + size_ / 4;
    if (cap <= kSmall) {
      Id* heap = u_.heap;
      std::memcpy(u_.small, heap, size_ * sizeof(Id));
      std::free(heap);
      cap_ = 0;
      return;
    }
    if (Id* p = static_cast<Id*>(std::realloc(u_.heap, cap * sizeof(Id)))) {
      u_.heap = p;
      cap_ = cap;
    }
  }
  // Empties the list and frees its storage.
  void release() {
    if (cap_ != 0) std::free(u_.heap);
    u_.heap = nullptr;
    size_ = cap_ = 0;
  }

 private:
  Id* data() { return cap_ == 0 ? u_.small : u_.heap; }
  const Id* data() const { return cap_ == 0 ? u_.small : u_.heap; }
  void steal(IdList& o) {
    std::memcpy(static_cast<void*>(this), static_cast<const void*>(&o), sizeof(IdList));
    o.u_.heap = nullptr;
    o.size_ = o.cap_ = 0;
  }
  void grow(std::uint32_t need) {
    std::uint32_t cap = capacity() * 2 + 4;
    if (cap < need) cap = need;
    Id* p;
    if (cap_ == 0) {
      p = static_cast<Id*>(std::malloc(cap * sizeof(Id)));
      if (!p) throw std::bad_alloc();
      std::memcpy(p, u_.small, size_ * sizeof(Id));
    } else {
      p = static_cast<Id*>(std::realloc(u_.heap, cap * sizeof(Id)));
      if (!p) throw std::bad_alloc();
    }
    u_.heap = p;
    cap_ = cap;
  }

  union Storage {
    Storage() : heap(nullptr) {}
    Id* heap;          // when cap_ > 0
    Id small[kSmall];  // when cap_ == 0
  } u_;
  std::uint32_t size_ = 0, cap_ = 0;
};

}  // namespace eqsat::egraph
