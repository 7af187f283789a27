// Reductions (sum prod max min mean logsumexp) over any set of axes, and
// softmax / log_softmax along one axis, computed stably: the maximum is
// subtracted before exponentiating. Every reduction becomes one group
// [outer, R, inner] (reduced axes that are not adjacent are first moved
// last by one copy), reduced with Eigen over contiguous rows.
#include "block_reduce.hpp"
#include "eigen_maps.hpp"
#include "elementwise_math.hpp"
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "thread_pool.hpp"
#include "vector_loops.hpp"
#include "vector_math.hpp"
#include "vector_reduce.hpp"

#include <Eigen/Core>

#include <cmath>
#include <limits>

namespace eqsat::backend::detail {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::IntList;
using ops::OpKind;

// A reduction's operand seen as [outer, R, inner], R the reduced length.
struct Group {
  std::int64_t outer = 1, reduced = 1, inner = 1;
};

template <class T>
T shift_of(T m) {
  return std::isfinite(m) ? m : T(0);
}

// y = x op c over n elements (y may be x) with the loops of the vector
// level in use (vector_loops.hpp): Eigen's, compiled for SSE2, made the
// subtraction and above all the division most of a softmax's time.
template <OpKind K, class T>
void with_constant(const T* x, T c, T* y, std::int64_t n) {
  binary_loop<BinaryMath<K>>(x, false, &c, true, y, n);
}

// sum(exp(x - s)) over a row of r elements, a block at a time.
template <class T>
T sum_exp_shifted(const T* x, std::int64_t r, T s) {
  alignas(64) T t[kReduceBlock];
  T total = 0;
  for (std::int64_t b = 0; b < r; b += kReduceBlock) {
    const std::int64_t m = std::min(kReduceBlock, r - b);
    with_constant<OpKind::Sub>(x + b, s, t, m);
    vmath::exp(t, t, m);
    total += vmath::row_sum(t, m);
  }
  return total;
}

// log(sum(exp(row - s))) + s, s the row's maximum (0 when not finite).
template <class T>
T logsumexp_row(const T* x, std::int64_t r) {
  if (r == 0) return -std::numeric_limits<T>::infinity();
  const T s = shift_of(vmath::row_max(x, r));
  return std::log(sum_exp_shifted(x, r, s)) + s;
}

template <class T>
void reduce_rows(OpKind kind, const T* x, T* y, const Group& g) {
  const std::int64_t r = g.reduced;
  if (kind == OpKind::Logsumexp) {
    if constexpr (std::is_floating_point_v<T>)
      parallel_for(g.outer,
                   std::max<std::int64_t>(1, kParallelElements / std::max<std::int64_t>(r, 1)),
                   [&](std::int64_t o0, std::int64_t o1) {
                     for (std::int64_t o = o0; o < o1; ++o) y[o] = logsumexp_row(x + o * r, r);
                   });
    return;
  }
  reduce_blocked<T>(kind, g.outer, r, y, [&](std::int64_t o, std::int64_t start, std::int64_t, T*) {
    return x + o * r + start;
  });
}

// Reduces n adjacent columns of an [r, stride] block into out, each
// column in row order.
template <class T>
void reduce_column_range(OpKind kind, const T* block, T* out, std::int64_t r, std::int64_t stride,
                         std::int64_t n) {
  using Eigen::PropagateNaN;
  using Eigen::internal::scalar_max_op;
  Out<T> acc(out, n);
  auto row = [&](std::int64_t i) { return In<T>(block + i * stride, n); };
  if (kind == OpKind::Logsumexp) {
    if constexpr (std::is_floating_point_v<T>) {
      if (r == 0) {
        acc.setConstant(-std::numeric_limits<T>::infinity());
        return;
      }
      Vec<T> shift = row(0), term(n);
      for (std::int64_t i = 1; i < r; ++i)
        shift = shift.binaryExpr(row(i), scalar_max_op<T, T, PropagateNaN>());
      shift = shift.unaryExpr([](T m) { return shift_of(m); });
      acc.setZero();
      for (std::int64_t i = 0; i < r; ++i) {
        term = row(i) - shift;
        vmath::exp(term.data(), term.data(), n);
        acc += term;
      }
      acc = acc.log() + shift;
    }
    return;
  }
  with_reduce_math(kind, [&]<class M>(M) {
    std::int64_t i = 0;
    if constexpr (requires { M::template identity<T>(); }) {
      acc.setConstant(M::template identity<T>());
    } else {
      acc = row(0);
      i = 1;
    }
    for (; i < r; ++i) acc = M::array(acc, row(i));
    for (std::int64_t j = 0; j < n; ++j) M::finish(acc[j], r);
  });
}

// Bytes of the shortest run of a row a thread reads in a column reduction.
constexpr std::int64_t kPageBytes = 4096;

template <class T>
void reduce_columns(OpKind kind, const T* x, T* y, const Group& g) {
  const std::int64_t r = g.reduced;
  // Threads take ranges of columns, each at least a page wide: a part
  // reads a run of each of the r rows, and runs of 250 f64 (2000 x 2000
  // summed over its rows in eight parts) took longer on two threads than
  // whole rows on one.
  const std::int64_t grain = std::max<std::int64_t>(
      {1, kParallelElements / std::max<std::int64_t>(r, 1), kPageBytes / std::int64_t{sizeof(T)}});
  parallel_for(g.outer * g.inner, grain, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1;) {
      const std::int64_t o = c / g.inner, j0 = c % g.inner;
      const std::int64_t n = std::min(g.inner - j0, c1 - c);
      reduce_column_range(kind, x + o * r * g.inner + j0, y + o * g.inner + j0, r, g.inner, n);
      c += n;
    }
  });
}

// The axes a reduction reduces (normalized and sorted by the type rule).
const IntList& axes_of(TermRef op) {
  return op->attrs().get<IntList>(AttrKey::Axis);
}

// Sets `group` for reducing `axes` of `x`, moving the reduced axes last (a
// copy into `storage`) when they are not adjacent. Returns the array to read.
const Array& grouped(const Array& x, const IntList& axes, Group& group, Array& storage) {
  const Dims& d = x.shape();
  const int rank = x.rank();
  if (axes.empty()) {
    group = {x.size(), 1, 1};
    return x;
  }
  const bool adjacent = axes.back() - axes.front() + 1 == static_cast<std::int64_t>(axes.size());
  if (adjacent) {
    group = {};
    for (int i = 0; i < rank; ++i) {
      if (i < axes.front())
        group.outer *= d[i];
      else if (i <= axes.back())
        group.reduced *= d[i];
      else
        group.inner *= d[i];
    }
    return x;
  }
  const Dims strides = contiguous_strides(d);
  Dims shape, moved_strides;
  group = {};
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < rank; ++i) {
      const bool reduced = std::ranges::binary_search(axes, i);
      if (reduced != (pass == 1)) continue;
      shape.push_back(d[i]);
      moved_strides.push_back(strides[i]);
      (reduced ? group.reduced : group.outer) *= d[i];
    }
  }
  storage = Array(x.dtype(), shape);
  strided_copy(x, 0, shape, moved_strides, storage);
  return storage;
}

template <class T>
void reduce_typed(OpKind kind, const Array& x, const IntList& axes, Array& out) {
  Group g;
  Array storage;
  const Array& src = grouped(x, axes, g, storage);
  if (g.inner == 1)
    reduce_rows<T>(kind, src.data<T>(), out.data<T>(), g);
  else
    reduce_columns<T>(kind, src.data<T>(), out.data<T>(), g);
}

// Softmax of one contiguous row: the maximum, then exp(x - max) into the
// result and its sum, then the division (the row is still in cache);
// log_softmax never writes the exponentials: x - (max + log(sum)).
template <class T>
void softmax_row(bool log, const T* x, T* y, std::int64_t r) {
  const T s = shift_of(vmath::row_max(x, r));
  if (log) {
    with_constant<OpKind::Sub>(x, s + std::log(sum_exp_shifted(x, r, s)), y, r);
    return;
  }
  with_constant<OpKind::Sub>(x, s, y, r);
  vmath::exp(y, y, r);  // tiny terms underflow to 0, as in NumPy
  with_constant<OpKind::Div>(y, vmath::row_sum(y, r), y, r);
}

// Softmax of m columns down r rows n elements apart (x and y at the
// first row's first column), with `shift` and `total` m long as scratch.
template <class T, class V>
void softmax_columns(bool log, const T* x, T* y, std::int64_t r, std::int64_t n, std::int64_t m,
                     V shift, V total) {
  using Eigen::PropagateNaN;
  using Eigen::internal::scalar_max_op;
  shift = In<T>(x, m);
  for (std::int64_t i = 1; i < r; ++i)
    shift = shift.binaryExpr(In<T>(x + i * n, m), scalar_max_op<T, T, PropagateNaN>());
  shift = shift.unaryExpr([](T v) { return shift_of(v); });
  total.setZero();
  for (std::int64_t i = 0; i < r; ++i) {
    Out<T> yr(y + i * n, m);
    yr = In<T>(x + i * n, m) - shift;
    vmath::exp(yr.data(), yr.data(), m);
    total += yr;
  }
  if (log) {
    total = total.log() + shift;
    for (std::int64_t i = 0; i < r; ++i) Out<T>(y + i * n, m) = In<T>(x + i * n, m) - total;
  } else {
    for (std::int64_t i = 0; i < r; ++i) Out<T>(y + i * n, m) /= total;
  }
}

template <class T>
void softmax_typed(bool log, const T* x, T* y, const Group& g) {
  const std::int64_t r = g.reduced, n = g.inner;
  if (r == 0 || n == 0) return;  // nothing to compute
  const std::int64_t grain =
      std::max<std::int64_t>(1, kParallelElements / std::max<std::int64_t>(1, r * n));
  if (n == 1) {
    parallel_for(g.outer, grain, [&](std::int64_t o0, std::int64_t o1) {
      for (std::int64_t o = o0; o < o1; ++o) softmax_row(log, x + o * r, y + o * r, r);
    });
    return;
  }
  // Softmax along a middle axis: each column (an index of the axes after
  // it) is its own, so threads take ranges of columns, at least a page of
  // each row wide (a softmax along the first axis of 2000 x 2000 ran on
  // one thread).
  // One thread takes whole rows, as before the split (a block of 512 f64
  // columns down 2000 rows ran 3-12% slower than the rows whole).
  const std::int64_t width =
      num_threads() == 1 ? n : std::min<std::int64_t>(n, kPageBytes / std::int64_t{sizeof(T)});
  const std::int64_t blocks = (n + width - 1) / width;
  parallel_for(g.outer * blocks, std::max<std::int64_t>(1, kParallelElements / (r * width)),
               [&](std::int64_t i0, std::int64_t i1) {
                 Vec<T> shift(width), total(width);
                 for (std::int64_t i = i0; i < i1; ++i) {
                   const std::int64_t j0 = (i % blocks) * width, m = std::min(width, n - j0);
                   const std::int64_t at = (i / blocks) * r * n + j0;
                   softmax_columns(log, x + at, y + at, r, n, m, shift.head(m), total.head(m));
                 }
               });
}

}  // namespace

void reduction_shape(TermRef op, Operands in, Dims& shape) {
  const Dims& d = in[0]->shape();
  const IntList& axes = axes_of(op);
  const bool keepdims = op->attrs().get<bool>(AttrKey::Keepdims);
  shape.clear();
  for (int i = 0; i < static_cast<int>(d.size()); ++i) {
    if (!std::ranges::binary_search(axes, i)) {
      shape.push_back(d[i]);
      continue;
    }
    if (d[i] == 0 && (op->kind() == OpKind::Max || op->kind() == OpKind::Min))
      fail(op, fmt::format("cannot reduce axis {} of length 0 (no identity)", i));
    if (keepdims) shape.push_back(1);
  }
}

void run_reduction(TermRef op, Operands in, Array& out) {
  const OpKind kind = op->kind();
  // Sums of integers accumulate in i64 and means in f64: the result dtype.
  const DType compute = out.dtype();
  const Array x = converted(*in[0], compute);
  if (compute == DType::Bool) {
    // max/min of bools: any/all, on the bytes as 0/1.
    Group g;
    Array storage;
    const Array& src = grouped(x, axes_of(op), g, storage);
    const auto* p = reinterpret_cast<const std::uint8_t*>(src.bytes());
    auto* q = reinterpret_cast<std::uint8_t*>(out.bytes());
    for (std::int64_t o = 0; o < g.outer; ++o)
      for (std::int64_t j = 0; j < g.inner; ++j) {
        std::uint8_t acc = kind == OpKind::Max ? 0 : 1;
        for (std::int64_t i = 0; i < g.reduced; ++i) {
          const std::uint8_t v = p[(o * g.reduced + i) * g.inner + j];
          acc = kind == OpKind::Max ? (acc | v) : (acc & v);
        }
        q[o * g.inner + j] = acc;
      }
    return;
  }
  ops::visit_dtype(compute, [&]<class T>(std::type_identity<T>) {
    if constexpr (!std::is_same_v<T, bool>) reduce_typed<T>(kind, x, axes_of(op), out);
  });
}

void run_softmax(TermRef op, Operands in, Array& out) {
  const Array x = converted(*in[0], out.dtype());
  const std::int64_t axis = op->attrs().get<std::int64_t>(AttrKey::Axis);
  Group g;
  for (int i = 0; i < x.rank(); ++i) {
    if (i < axis)
      g.outer *= x.shape()[i];
    else if (i == axis)
      g.reduced = x.shape()[i];
    else
      g.inner *= x.shape()[i];
  }
  const bool log = op->kind() == OpKind::LogSoftmax;
  if (out.dtype() == DType::F32)
    softmax_typed(log, x.data<float>(), out.data<float>(), g);
  else
    softmax_typed(log, x.data<double>(), out.data<double>(), g);
}

}  // namespace eqsat::backend::detail
