// Internal to the kernels: errors naming the op, dtype conversion of
// operands, and the broadcast plan that turns NumPy broadcasting into runs
// of contiguous (or constant) elements so inner loops stay tight.
#pragma once

#include "kernels.hpp"
#include "runtime_error.hpp"

#include "ops/op_dispatch.hpp"

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
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

// A copy of `src` (of shape `shape`, element strides `strides`, possibly 0
// or negative, starting at element `offset`) into contiguous `dst`.
void strided_copy(const Array& src, std::int64_t offset, const Dims& shape,
                  std::span<const std::int64_t> strides, Array& dst);

// Row-major element strides of a contiguous array of shape `d`.
Dims contiguous_strides(const Dims& d);

}  // namespace eqsat::backend::detail
