#include "array.hpp"

#include "hash.hpp"
#include "type_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>

namespace eqsat::ops {

namespace {
// Buffers of at least this size are mapped straight from the kernel,
// aligned to it and backed by transparent huge pages where the kernel
// offers them: the pages come zeroed (no memset pass) and first-touch page
// faults cost a few milliseconds per 100 MB instead of tens.
constexpr std::size_t kHugePage = std::size_t{1} << 21;

// Mappings of freed large buffers, kept (up to kCachedBytes in all) for
// the next buffer of the same size whose contents do not matter
// (Array::uninitialized: a kernel's result, which the kernel writes
// whole). A program run again and again makes a new output buffer each
// time; without the cache each one was new pages the kernel faulted in
// and zeroed, which took longer than the `exp` of 10^7 f64 that filled
// them (bench/README.md, "Speed round 6"). A zero-filled Array never
// takes a cached mapping.
constexpr std::size_t kCachedBytes = std::size_t{256} << 20;
struct MappingCache {
  std::mutex mutex;
  std::vector<std::pair<std::byte*, std::size_t>> free;  // oldest first
  std::size_t bytes = 0;

  // A cached mapping of exactly `padded` bytes, or null.
  std::byte* take(std::size_t padded) {
    std::lock_guard lock(mutex);
    for (auto it = free.rbegin(); it != free.rend(); ++it) {
      if (it->second != padded) continue;
      std::byte* p = it->first;
      free.erase(std::next(it).base());
      bytes -= padded;
      return p;
    }
    return nullptr;
  }
  // Keeps a freed mapping, unmapping the oldest ones past kCachedBytes.
  void give(std::byte* p, std::size_t padded) {
    std::lock_guard lock(mutex);
    if (padded > kCachedBytes) {
      munmap(p, padded);
      return;
    }
    free.emplace_back(p, padded);
    bytes += padded;
    while (bytes > kCachedBytes) {
      munmap(free.front().first, free.front().second);
      bytes -= free.front().second;
      free.erase(free.begin());
    }
  }
  // Unmaps every cached mapping (when the address space is short).
  void clear() {
    std::lock_guard lock(mutex);
    for (auto [p, n] : free) munmap(p, n);
    free.clear();
    bytes = 0;
  }
};

MappingCache& mapping_cache() {
  static MappingCache* cache = new MappingCache;  // never destroyed: buffers may outlive statics
  return *cache;
}

std::shared_ptr<std::byte[]> allocate_mapped(std::size_t nbytes, bool zeroed) {
  const std::size_t padded = (nbytes + kHugePage - 1) / kHugePage * kHugePage;
  auto release = [padded](std::byte* q) { mapping_cache().give(q, padded); };
  if (!zeroed)
    if (std::byte* p = mapping_cache().take(padded))
      return std::shared_ptr<std::byte[]>(p, release);
  // Over-map by one huge page, then unmap the unaligned head and the tail.
  void* raw =
      mmap(nullptr, padded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    mapping_cache().clear();
    raw = mmap(nullptr, padded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
               0);
  }
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto* base = static_cast<std::byte*>(raw);
  const auto misalign = reinterpret_cast<std::uintptr_t>(base) % kHugePage;
  std::byte* p = base + (misalign ? kHugePage - misalign : 0);
  if (p > base) munmap(base, p - base);
  if (p + padded < base + padded + kHugePage)
    munmap(p + padded, base + padded + kHugePage - (p + padded));
#ifdef MADV_HUGEPAGE
  madvise(p, padded, MADV_HUGEPAGE);
#endif
  return std::shared_ptr<std::byte[]>(p, release);
}

std::shared_ptr<std::byte[]> allocate(std::size_t nbytes, bool zeroed) {
  if (nbytes >= kHugePage) return allocate_mapped(nbytes, zeroed);
  // Round up so vector loads of the last elements stay inside the buffer.
  const std::size_t padded = (std::max<std::size_t>(nbytes, 1) + Array::kAlignment - 1) /
                             Array::kAlignment * Array::kAlignment;
  auto* p = static_cast<std::byte*>(::operator new[](padded, std::align_val_t(Array::kAlignment)));
  std::memset(p, 0, padded);
  return std::shared_ptr<std::byte[]>(
      p, [](std::byte* q) { ::operator delete[](q, std::align_val_t(Array::kAlignment)); });
}
}  // namespace

Array::Array(DType dtype, Dims shape, bool zeroed) : dtype_(dtype), shape_(std::move(shape)) {
  for (auto d : shape_)
    if (d < 0) throw TypeError("array shape has an unknown or negative dimension");
  // A size that overflows cannot be allocated: the same error as any other
  // allocation that fails (callers report running out of memory).
  if (!checked_num_bytes(type())) throw std::bad_array_new_length();
  size_ = *checked_num_elements(shape_);
  buffer_ = allocate(nbytes(), zeroed);
}

Array::Array(DType dtype, Dims shape) : Array(dtype, std::move(shape), true) {}

Array Array::uninitialized(DType dtype, Dims shape) {
  return Array(dtype, std::move(shape), false);
}

Array Array::scalar(DType dtype, double value) {
  return filled(dtype, {}, value);
}

Array Array::filled(DType dtype, Dims shape, double value) {
  Array a(dtype, std::move(shape));
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    std::fill_n(a.data<T>(), a.size(), static_cast<T>(value));
  });
  return a;
}

double Array::element(std::int64_t i) const {
  return visit_dtype(
      dtype_, [&]<class T>(std::type_identity<T>) { return static_cast<double>(data<T>()[i]); });
}

std::optional<std::int64_t> Array::integer_element(std::int64_t i) const {
  return visit_dtype(dtype_, [&]<class T>(std::type_identity<T>) -> std::optional<std::int64_t> {
    const T v = data<T>()[i];
    if constexpr (std::is_integral_v<T>) {
      return static_cast<std::int64_t>(v);  // every integer dtype fits in int64
    } else {
      const double d = static_cast<double>(v);
      if (!(d >= -0x1p63 && d < 0x1p63) || d != std::trunc(d)) return std::nullopt;
      return static_cast<std::int64_t>(d);
    }
  });
}

std::optional<double> Array::uniform_value() const {
  if (size_ == 0) return std::nullopt;
  return visit_dtype(dtype_, [&]<class T>(std::type_identity<T>) -> std::optional<double> {
    const T* p = data<T>();
    // Compare bytes so NaN constants are recognised as uniform too.
    for (std::int64_t i = 1; i < size_; ++i)
      if (std::memcmp(p + i, p, sizeof(T)) != 0) return std::nullopt;
    const double v = static_cast<double>(p[0]);
    // An integer of magnitude 2^53 or more may have no exact double: report
    // no value rather than a rounded one (INT64_MAX would round to 2^63,
    // which no int64 holds).
    if constexpr (std::is_integral_v<T>)
      if (std::abs(v) >= 0x1p53) return std::nullopt;
    return v;
  });
}

Array Array::clone() const {
  Array a(dtype_, shape_);
  if (size_ > 0) std::memcpy(a.bytes(), bytes(), nbytes());
  return a;
}

Array Array::reshaped(Dims shape) const {
  Array a = *this;
  if (checked_num_elements(shape) != size_ ||
      std::ranges::any_of(shape, [](auto d) { return d < 0; }))
    throw TypeError("reshape changes the number of elements");
  a.shape_ = std::move(shape);
  return a;
}

std::optional<Array> Array::row_view(std::int64_t i) const {
  if (shape_.empty() || i < 0 || i >= shape_[0]) return std::nullopt;
  const std::size_t row = nbytes() / static_cast<std::size_t>(shape_[0]);
  if (row % kAlignment != 0) return std::nullopt;
  Array a;
  a.dtype_ = dtype_;
  a.shape_.assign(shape_.begin() + 1, shape_.end());
  a.size_ = size_ / shape_[0];
  a.buffer_ = std::shared_ptr<std::byte[]>(buffer_, buffer_.get() + i * row);
  return a;
}

std::optional<Array> Array::rows_view(std::int64_t begin, std::int64_t end) const {
  if (shape_.empty() || begin < 0 || end <= begin || end > shape_[0]) return std::nullopt;
  const std::size_t row = nbytes() / static_cast<std::size_t>(shape_[0]);
  if (begin * row % kAlignment != 0) return std::nullopt;
  Array a;
  a.dtype_ = dtype_;
  a.shape_ = shape_;
  a.shape_[0] = end - begin;
  a.size_ = size_ / shape_[0] * (end - begin);
  a.buffer_ = std::shared_ptr<std::byte[]>(buffer_, buffer_.get() + begin * row);
  return a;
}

bool Array::same_value(const Array& other) const {
  return dtype_ == other.dtype_ && shape_ == other.shape_ &&
         (size_ == 0 || std::memcmp(bytes(), other.bytes(), nbytes()) == 0);
}

std::size_t Array::hash() const {
  std::size_t h = std::hash<std::string_view>{}(
      std::string_view(reinterpret_cast<const char*>(bytes()), size_ == 0 ? 0 : nbytes()));
  h = hash_combine(h, static_cast<std::size_t>(dtype_));
  for (auto d : shape_) h = hash_combine(h, static_cast<std::size_t>(d));
  return h;
}

}  // namespace eqsat::ops
