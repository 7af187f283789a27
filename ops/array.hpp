// Array: a concrete n-dimensional value of the tensor language — a dtype, a
// shape and a contiguous row-major buffer aligned to 64 bytes. Copies share
// the buffer (cheap, like a NumPy view of the whole array); `clone()` makes
// an independent copy. Used for constants in terms and by the executor.
#pragma once

#include "dtype.hpp"
#include "type.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace eqsat::ops {

class Array {
 public:
  // Alignment of every buffer, enough for any vector unit.
  static constexpr std::size_t kAlignment = 64;

  Array() = default;
  // A zero-filled array. Every dimension must be known (>= 0).
  Array(DType dtype, Dims shape);
  // An array whose elements are unspecified, for a result its kernel
  // writes whole: a large one (2 MiB and up) may reuse the mapping of a
  // large buffer freed before, old contents included, instead of new pages
  // the OS must fault in and zero.
  static Array uninitialized(DType dtype, Dims shape);

  // A scalar holding `value` converted to `dtype`.
  static Array scalar(DType dtype, double value);
  // An array of `shape` whose elements all equal `value` converted to `dtype`.
  static Array filled(DType dtype, Dims shape, double value);

  // Makes this an empty array as Array() is, keeping the storage of its
  // shape for the next array assigned to it: a loop body's frame is filled
  // again at every step, and copying a shape into it then allocates nothing.
  void release() {
    buffer_.reset();
    shape_.clear();
    size_ = 0;
    dtype_ = DType::F64;
  }

  DType dtype() const { return dtype_; }
  const Dims& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t size() const { return size_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(size_) * dtype_size(dtype_); }
  TensorType type() const { return {dtype_, shape_}; }

  std::byte* bytes() { return buffer_.get(); }
  const std::byte* bytes() const { return buffer_.get(); }
  template <class T>
  T* data() {
    return reinterpret_cast<T*>(buffer_.get());
  }
  template <class T>
  const T* data() const {
    return reinterpret_cast<const T*>(buffer_.get());
  }
  template <class T>
  std::span<T> span() {
    return {data<T>(), static_cast<std::size_t>(size_)};
  }
  template <class T>
  std::span<const T> span() const {
    return {data<T>(), static_cast<std::size_t>(size_)};
  }

  // Element i (row-major flat index) converted to double.
  double element(std::int64_t i) const;
  // Element i as an exact int64: integers and booleans as they are, floats
  // when finite, integral and within int64's range; nullopt otherwise
  // (2.5, NaN, 1e30), where a cast would truncate or be undefined.
  std::optional<std::int64_t> integer_element(std::int64_t i) const;
  // The value every element has, when they are all equal (and size > 0).
  std::optional<double> uniform_value() const;

  // A deep copy with its own buffer.
  Array clone() const;
  // Same buffer, another shape with the same number of elements.
  Array reshaped(Dims shape) const;
  // Row i along the first axis, sharing this buffer (no copy): a view that
  // keeps the whole buffer alive. nullopt when the row would not start on
  // a kAlignment boundary (every buffer is aligned), or i is out of range.
  std::optional<Array> row_view(std::int64_t i) const;
  // Rows [begin, end) along the first axis, sharing this buffer, as an
  // array of end - begin rows; nullopt when row `begin` would not start on
  // a kAlignment boundary or the range is empty or out of range.
  std::optional<Array> rows_view(std::int64_t begin, std::int64_t end) const;
  // True when no other Array shares this buffer (safe to write in place).
  bool unique() const { return buffer_.use_count() == 1; }

  // Same dtype, shape and bytes.
  bool same_value(const Array& other) const;
  std::size_t hash() const;

 private:
  Array(DType dtype, Dims shape, bool zeroed);

  DType dtype_ = DType::F64;
  Dims shape_;
  std::int64_t size_ = 0;
  std::shared_ptr<std::byte[]> buffer_;
};

}  // namespace eqsat::ops
