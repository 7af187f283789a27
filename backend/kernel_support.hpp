// Internal to the kernels: errors naming the op, dtype conversion of
// operands, and the broadcast plan that turns NumPy broadcasting into runs
// of contiguous (or constant) elements so inner loops stay tight.
#pragma once

#include "kernels.hpp"
#include "runtime_error.hpp"
#include "thread_pool.hpp"

#include "ops/op_dispatch.hpp"

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace eqsat::backend::detail {

using ops::Array;
using ops::Dims;
using ops::DType;

// Throws RuntimeError("OP: MESSAGE").
[[noreturn]] void fail(ops::TermRef op, const std::string& message);

// Calls f(Table<K>{}) with K = kind, for a family of kernels written as one
// table of specializations per op group (ShapeKernel<K>, CreationKernel<K>,
// ...): an op of group G without its entry does not compile, and no
// `default:` can hand it another op's kernel.
template <template <ops::OpKind> class Table, ops::OpGroup G, class F>
void with_family_kernel(ops::OpKind kind, F&& f) {
  ops::dispatch_op(kind, [&]<ops::OpKind K>(std::integral_constant<ops::OpKind, K>) {
    if constexpr (ops::group_of(K) == G) {
      static_assert(sizeof(Table<K>) > 0, "every op of the group has its kernel");
      return f(Table<K>{});
    }
    EQSAT_ASSERT(false) << ops::op_name(kind) << " has no kernel in this family";
  });
}

// `a` itself when it already has dtype `d`, else a converted copy.
Array converted(const Array& a, DType d);

// Converts every element of `in` into `out` (same number of elements).
// Floats to integers truncate toward zero; NaN and out-of-range values give
// the integer minimum (as NumPy does on x86); anything to bool is `!= 0`.
void convert_into(const Array& in, Array& out);

// NumPy broadcasting of `shapes` against each other; throws RuntimeError
// naming `op` when two dimensions differ and neither is 1.
void broadcast_shapes(ops::TermRef op, std::span<const Dims* const> shapes, Dims& out);

std::int64_t num_elements(const Dims& d);

// Broadcasting of N operands to an output shape, as collapsed dimensions:
// adjacent dimensions every operand walks contiguously are merged and
// length-1 dimensions dropped, so the innermost run is as long as possible.
// In the innermost dimension every operand's stride is 0 (a constant) or 1.
template <int N>
class Broadcast {
 public:
  Broadcast(const Dims& out, std::array<const Dims*, N> operands) {
    const int rank = static_cast<int>(out.size());
    total_ = num_elements(out);
    std::array<std::int64_t, N> running;
    running.fill(1);
    // Walk from the innermost dimension outward, collecting kept dims in
    // reverse, then flip.
    for (int d = rank - 1; d >= 0; --d) {
      if (out[d] == 1) continue;
      std::array<std::int64_t, N> s;
      for (int j = 0; j < N; ++j) {
        const Dims& od = *operands[j];
        const int k = d - (rank - static_cast<int>(od.size()));
        const bool broadcast = k < 0 || od[k] == 1;
        s[j] = broadcast ? 0 : running[j];
        if (!broadcast) running[j] *= od[k];
      }
      if (!dims_.empty()) {
        bool merge = true;
        for (int j = 0; j < N; ++j)
          if (s[j] != strides_.back()[j] * dims_.back()) merge = false;
        if (merge) {
          dims_.back() *= out[d];
          continue;
        }
      }
      dims_.push_back(out[d]);
      strides_.push_back(s);
    }
    std::reverse(dims_.begin(), dims_.end());
    std::reverse(strides_.begin(), strides_.end());
  }

  // Calls f(offsets, out_offset, n, inner) for each run of n output
  // elements: operand j's elements start at offsets[j] and advance by
  // inner[j] (0 or 1); the output's are contiguous from out_offset.
  template <class F>
  void for_each_run(F&& f) const {
    if (total_ == 0) return;
    std::array<std::int64_t, N> offsets{};
    if (dims_.empty()) {
      f(offsets, std::int64_t{0}, std::int64_t{1}, offsets);
      return;
    }
    const int outer = static_cast<int>(dims_.size()) - 1;
    const std::int64_t n = dims_.back();
    const std::array<std::int64_t, N> inner = strides_.back();
    absl::InlinedVector<std::int64_t, 6> index(outer, 0);
    for (std::int64_t out_offset = 0;; out_offset += n) {
      f(offsets, out_offset, n, inner);
      int d = outer - 1;
      for (; d >= 0; --d) {
        for (int j = 0; j < N; ++j) offsets[j] += strides_[d][j];
        if (++index[d] < dims_[d]) break;
        for (int j = 0; j < N; ++j) offsets[j] -= strides_[d][j] * dims_[d];
        index[d] = 0;
      }
      if (d < 0) return;
    }
  }

 private:
  std::int64_t total_ = 0;
  absl::InlinedVector<std::int64_t, 6> dims_;
  absl::InlinedVector<std::array<std::int64_t, N>, 6> strides_;
};

// Elements a thread copies, converts or fills at least: a copy of 2^15
// elements (a transpose of an encoder's keys, 128 x 4 x 64) takes two
// threads.
inline constexpr std::int64_t kCopyGrain = std::int64_t{1} << 14;

// A copy of `src` (of shape `shape`, element strides `strides`, possibly 0
// or negative, starting at element `offset`) into contiguous `dst`.
void strided_copy(const Array& src, std::int64_t offset, const Dims& shape,
                  std::span<const std::int64_t> strides, Array& dst);

// Row-major element strides of a contiguous array of shape `d`.
Dims contiguous_strides(const Dims& d);

// One thread's part of a walk over a shape: the shape with `axis` cut to
// the part's length, the index along `axis` where the part starts, and the
// elements of the walk per index of `axis`.
struct AxisPart {
  Dims shape;
  std::size_t axis = 0;
  std::int64_t first = 0, slice = 0;

  // Where the part starts in an array of element strides `strides` (0 for
  // the whole walk, whatever its rank).
  std::int64_t start(std::span<const std::int64_t> strides) const {
    return first == 0 ? 0 : first * strides[axis];
  }
  // Where the part starts in the walk's row-major result.
  std::int64_t start_in_result() const { return first * slice; }
};

// Calls f(AxisPart) for parts of `shape` split between threads along its
// first axis longer than 1 (each part a contiguous run of a row-major
// result), each of at least `grain` elements; a walk without such an axis
// (rank 0, or all 1s) is one part. Nothing for an empty shape.
template <class F>
void split_first_long_axis(const Dims& shape, std::int64_t grain, const F& f) {
  const std::int64_t n = num_elements(shape);
  if (n == 0) return;
  const auto long_axis = std::find_if(shape.begin(), shape.end(), [](auto d) { return d > 1; });
  if (long_axis == shape.end()) return f(AxisPart{shape});
  const auto axis = static_cast<std::size_t>(long_axis - shape.begin());
  const std::int64_t extent = *long_axis, slice = n / extent;
  parallel_for(extent, (grain + slice - 1) / slice, [&](std::int64_t i0, std::int64_t i1) {
    AxisPart part{shape, axis, i0, slice};
    part.shape[axis] = i1 - i0;
    f(part);
  });
}

}  // namespace eqsat::backend::detail
