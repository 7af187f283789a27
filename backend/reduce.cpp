// Reductions (sum prod max min mean logsumexp) over any set of axes, and
// softmax / log_softmax along one axis, computed stably: the maximum is
// subtracted before exponentiating. Every reduction becomes one group
// [outer, R, inner] (reduced axes that are not adjacent are first moved
// last by one copy), reduced with Eigen over contiguous rows.
#include "eigen_maps.hpp"
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "subnormal_math.hpp"

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

template <class T>
void reduce_rows(OpKind kind, const T* x, T* y, const Group& g) {
  using Eigen::PropagateNaN;
  const std::int64_t r = g.reduced;
  for (std::int64_t o = 0; o < g.outer; ++o) {
    In<T> row(x + o * r, r);
    switch (kind) {
      case OpKind::Sum:
        y[o] = row.sum();
        break;
      case OpKind::Prod:
        y[o] = row.prod();
        break;
      case OpKind::Max:
        y[o] = row.template maxCoeff<PropagateNaN>();
        break;
      case OpKind::Min:
        y[o] = row.template minCoeff<PropagateNaN>();
        break;
      case OpKind::Mean:
        if constexpr (std::is_floating_point_v<T>) y[o] = row.sum() / T(r);
        break;
      case OpKind::Logsumexp:
        if constexpr (std::is_floating_point_v<T>) {
          if (r == 0) {
            y[o] = -std::numeric_limits<T>::infinity();
          } else {
            const T s = shift_of(row.template maxCoeff<PropagateNaN>());
            y[o] = std::log((row - s).exp().sum()) + s;
          }
        }
        break;
      default:
        break;
    }
  }
}

template <class T>
void reduce_columns(OpKind kind, const T* x, T* y, const Group& g) {
  using Eigen::PropagateNaN;
  using Eigen::internal::scalar_max_op;
  using Eigen::internal::scalar_min_op;
  const std::int64_t r = g.reduced, n = g.inner;
  for (std::int64_t o = 0; o < g.outer; ++o) {
    const T* block = x + o * r * n;
    Out<T> acc(y + o * n, n);
    auto row = [&](std::int64_t i) { return In<T>(block + i * n, n); };
    switch (kind) {
      case OpKind::Sum:
      case OpKind::Mean:
        acc.setZero();
        for (std::int64_t i = 0; i < r; ++i) acc += row(i);
        if constexpr (std::is_floating_point_v<T>)
          if (kind == OpKind::Mean) acc /= T(r);
        break;
      case OpKind::Prod:
        acc.setOnes();
        for (std::int64_t i = 0; i < r; ++i) acc *= row(i);
        break;
      case OpKind::Max:
        acc = row(0);
        for (std::int64_t i = 1; i < r; ++i)
          acc = acc.binaryExpr(row(i), scalar_max_op<T, T, PropagateNaN>());
        break;
      case OpKind::Min:
        acc = row(0);
        for (std::int64_t i = 1; i < r; ++i)
          acc = acc.binaryExpr(row(i), scalar_min_op<T, T, PropagateNaN>());
        break;
      case OpKind::Logsumexp:
        if constexpr (std::is_floating_point_v<T>) {
          if (r == 0) {
            acc.setConstant(-std::numeric_limits<T>::infinity());
            break;
          }
          Vec<T> shift = row(0);
          for (std::int64_t i = 1; i < r; ++i)
            shift = shift.binaryExpr(row(i), scalar_max_op<T, T, PropagateNaN>());
          shift = shift.unaryExpr([](T m) { return shift_of(m); });
          acc.setZero();
          for (std::int64_t i = 0; i < r; ++i) acc += (row(i) - shift).exp();
          acc = acc.log() + shift;
        }
        break;
      default:
        break;
    }
  }
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

template <class T>
void softmax_typed(bool log, const T* x, T* y, const Group& g) {
  using Eigen::PropagateNaN;
  using Eigen::internal::scalar_max_op;
  const std::int64_t r = g.reduced, n = g.inner;
  if (r == 0) return;
  if (n == 1) {
    for (std::int64_t o = 0; o < g.outer; ++o) {
      In<T> row(x + o * r, r);
      Out<T> res(y + o * r, r);
      const T s = shift_of(row.template maxCoeff<PropagateNaN>());
      if (log) {
        const T lse = std::log((row - s).exp().sum());
        res = row - (s + lse);
      } else {
        res = row - s;
        exact_exp(res.data(), res.data(), r);  // tiny terms underflow to 0, as in NumPy
        res /= res.sum();
      }
    }
    return;
  }
  Vec<T> shift(n), total(n);
  for (std::int64_t o = 0; o < g.outer; ++o) {
    const T* xb = x + o * r * n;
    T* yb = y + o * r * n;
    shift = In<T>(xb, n);
    for (std::int64_t i = 1; i < r; ++i)
      shift = shift.binaryExpr(In<T>(xb + i * n, n), scalar_max_op<T, T, PropagateNaN>());
    shift = shift.unaryExpr([](T m) { return shift_of(m); });
    total.setZero();
    for (std::int64_t i = 0; i < r; ++i) {
      Out<T> yr(yb + i * n, n);
      yr = In<T>(xb + i * n, n) - shift;
      exact_exp(yr.data(), yr.data(), n);
      total += yr;
    }
    if (log) {
      total = total.log() + shift;
      for (std::int64_t i = 0; i < r; ++i) Out<T>(yb + i * n, n) = In<T>(xb + i * n, n) - total;
    } else {
      for (std::int64_t i = 0; i < r; ++i) Out<T>(yb + i * n, n) /= total;
    }
  }
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
