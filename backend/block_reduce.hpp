// Row reductions in a fixed order, shared by the reduction kernels and the
// fused reductions (an elementwise expression reduced as it is computed),
// so that both give the same bits whatever the number of threads and the
// data's alignment: each row is cut into blocks of kReduceBlock elements,
// each block is reduced in 8 lanes (fold_lanes), and the blocks' results
// are combined from first to last.
#pragma once

#include "eigen_maps.hpp"
#include "thread_pool.hpp"

#include "ops/op_dispatch.hpp"
#include "support/internal_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace eqsat::backend::detail {

inline constexpr std::int64_t kReduceBlock = 512;
// Below this many elements in all, a reduction runs on one thread.
inline constexpr std::int64_t kParallelElements = std::int64_t{1} << 15;

// True for the reductions reduce_blocked computes: those the catalogue
// marks fusable (sum mean prod max min).
inline bool block_reducible(ops::OpKind kind) {
  return ops::op_info(kind).group == ops::OpGroup::Reduction &&
         ops::fusion(kind) != ops::Fusion::NoFuse;
}

// x[0] (op) ... (op) x[n-1] in a fixed order whatever x's alignment (8
// running lanes, lane j taking elements j, j + 8, ..., then the lanes
// pairwise), which the compiler vectorizes. n >= 1.
template <class T, class Op>
T fold_lanes(const T* x, std::int64_t n, T identity, Op op) {
  constexpr int kLanes = 8;
  T lane[kLanes];
  std::fill_n(lane, kLanes, identity);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] = op(lane[j], x[i + j]);
  for (int j = 0; i < n; ++i, ++j) lane[j] = op(lane[j], x[i]);
  for (int width = kLanes / 2; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j) lane[j] = op(lane[j], lane[j + width]);
  return lane[0];
}

// The fold of each reduction reduce_blocked computes (the catalogue's
// fusable reductions), written once for the row, block and column paths:
// `identity` where the fold has one (max and min start from an element),
// `block(x, n)` the value of n >= 1 elements in fold_lanes' fixed order,
// `combine(a, b)` two partial values, `array(acc, row)` the same on Eigen
// arrays, `empty` the value of no element (max and min of nothing are
// refused before), `finish(acc, n)` what n folded elements give (mean
// divides).
template <ops::OpKind K>
struct ReduceMath;

// What most folds share: nothing to finish, 0 for no element.
struct FoldDefaults {
  template <class T>
  static T empty() {
    return T(0);
  }
  template <class T>
  static void finish(T&, std::int64_t) {}
};

struct SumFold : FoldDefaults {
  template <class T>
  static T identity() {
    return T(0);
  }
  template <class T>
  static T block(const T* x, std::int64_t n) {
    return fold_lanes(x, n, T(0), [](T a, T b) { return a + b; });
  }
  template <class T>
  static T combine(T a, T b) {
    return a + b;
  }
  static auto array(const auto& acc, const auto& row) { return acc + row; }
};
template <>
struct ReduceMath<ops::OpKind::Sum> : SumFold {};
template <>
struct ReduceMath<ops::OpKind::Mean> : SumFold {
  template <class T>
  static T empty() {
    return std::numeric_limits<T>::quiet_NaN();
  }
  template <class T>
  static void finish(T& acc, std::int64_t n) {
    if constexpr (std::is_floating_point_v<T>) acc /= static_cast<T>(n);
  }
};
template <>
struct ReduceMath<ops::OpKind::Prod> : FoldDefaults {
  template <class T>
  static T identity() {
    return T(1);
  }
  template <class T>
  static T block(const T* x, std::int64_t n) {
    return fold_lanes(x, n, T(1), [](T a, T b) { return a * b; });
  }
  template <class T>
  static T combine(T a, T b) {
    return a * b;
  }
  static auto array(const auto& acc, const auto& row) { return acc * row; }
  template <class T>
  static T empty() {
    return T(1);
  }
};
// max and min propagate NaN, as NumPy's.
template <bool IsMax>
struct ExtremumFold : FoldDefaults {
  template <class T>
  static T block(const T* x, std::int64_t n) {
    if constexpr (IsMax)
      return In<T>(x, n).template maxCoeff<Eigen::PropagateNaN>();
    else
      return In<T>(x, n).template minCoeff<Eigen::PropagateNaN>();
  }
  template <class T>
  static T combine(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return IsMax ? std::max(a, b) : std::min(a, b);
  }
  static auto array(const auto& acc, const auto& row) {
    using T = typename std::remove_cvref_t<decltype(acc)>::Scalar;
    if constexpr (IsMax)
      return acc.binaryExpr(row, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>());
    else
      return acc.binaryExpr(row, Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>());
  }
};
template <>
struct ReduceMath<ops::OpKind::Max> : ExtremumFold<true> {};
template <>
struct ReduceMath<ops::OpKind::Min> : ExtremumFold<false> {};

// Calls f(ReduceMath<K>{}) for the fusable reduction `kind`: a fusable
// reduction without its ReduceMath does not compile.
template <class F>
void with_reduce_math(ops::OpKind kind, F&& f) {
  ops::dispatch_op(kind, [&]<ops::OpKind K>(std::integral_constant<ops::OpKind, K>) {
    if constexpr (ops::group_of(K) == ops::OpGroup::Reduction &&
                  ops::fusion_of(K) != ops::Fusion::NoFuse) {
      static_assert(sizeof(ReduceMath<K>) > 0, "every fusable reduction has its ReduceMath");
      return f(ReduceMath<K>{});
    }
    EQSAT_ASSERT(false) << "no blocked reduction for " << ops::op_name(kind);
  });
}

// out[r] = the reduction of row r, for `rows` rows of `len` elements (len
// >= 1; max/min of empty rows are refused before). `block(r, start, m,
// scratch)` returns the m elements [start, start + m) of row r, computing
// them into `scratch` (kReduceBlock elements) when they are not in memory.
template <class T, class Block>
void reduce_blocked(ops::OpKind kind, std::int64_t rows, std::int64_t len, T* out,
                    const Block& block) {
  with_reduce_math(kind, [&]<class M>(M) {
    if (len == 0) {
      std::fill_n(out, rows, M::template empty<T>());
      return;
    }
    const std::int64_t blocks = (len + kReduceBlock - 1) / kReduceBlock;
    const std::int64_t per_item = std::min(len, kReduceBlock);
    auto finish = [&](T acc) {
      M::finish(acc, len);
      return acc;
    };
    auto row_result = [&](std::int64_t r, T* scratch) {
      T acc{};
      for (std::int64_t b = 0; b < blocks; ++b) {
        const std::int64_t start = b * kReduceBlock, m = std::min(kReduceBlock, len - start);
        const T part = M::block(block(r, start, m, scratch), m);
        acc = b == 0 ? part : M::combine(acc, part);
      }
      return finish(acc);
    };
    if (rows >= num_threads() || blocks == 1) {
      // Rows apart: each thread reduces whole rows.
      parallel_for(rows, std::max<std::int64_t>(1, kParallelElements / len),
                   [&](std::int64_t r0, std::int64_t r1) {
                     alignas(64) T scratch[kReduceBlock];
                     for (std::int64_t r = r0; r < r1; ++r) out[r] = row_result(r, scratch);
                   });
      return;
    }
    // Few long rows: the blocks' results in parallel, combined in order.
    std::vector<T> parts(rows * blocks);
    parallel_for(rows * blocks, std::max<std::int64_t>(1, kParallelElements / per_item),
                 [&](std::int64_t i0, std::int64_t i1) {
                   alignas(64) T scratch[kReduceBlock];
                   for (std::int64_t i = i0; i < i1; ++i) {
                     const std::int64_t r = i / blocks, start = (i % blocks) * kReduceBlock;
                     const std::int64_t m = std::min(kReduceBlock, len - start);
                     parts[i] = M::block(block(r, start, m, scratch), m);
                   }
                 });
    for (std::int64_t r = 0; r < rows; ++r) {
      T acc = parts[r * blocks];
      for (std::int64_t b = 1; b < blocks; ++b) acc = M::combine(acc, parts[r * blocks + b]);
      out[r] = finish(acc);
    }
  });
}

}  // namespace eqsat::backend::detail
