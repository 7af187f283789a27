// Indexing kernels with Python semantics: `index` (x[i] along axis 0,
// negative from the end), `slice` (start/stop/step, clamped),
// `resize_rows` (x's first n rows, zero rows past its end), and the
// updates set_index, inc_index, set_slice, inc_slice, which return an
// updated copy of x (or update x's buffer when the executor hands it over).
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "thread_pool.hpp"

#include "ops/slice.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace eqsat::backend::detail {

namespace {

using ops::AttrKey;
using ops::OpKind;

// The index operand resolved against x's leading dimension. The index (an
// integer scalar, by the type rules) is read exactly, not through double,
// which rounds INT64_MAX to 2^63, out of int64's range.
std::int64_t resolve_index(TermRef op, const Array& x, const Array& i) {
  if (x.rank() == 0) fail(op, "cannot index a scalar");
  const std::int64_t raw = ops::visit_dtype(i.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<std::int64_t>(i.data<T>()[0]);
    else
      return static_cast<std::int64_t>(0);  // not reached: the index is an integer
  });
  const std::int64_t n = x.shape()[0];
  const std::int64_t at = raw < 0 ? raw + n : raw;
  if (at < 0 || at >= n)
    fail(op, fmt::format("index {} is out of range for axis 0 with length {}", raw, n));
  return at;
}

ops::SliceBounds bounds_of(TermRef op) {
  const ops::Attrs& a = op->attrs();
  ops::SliceBounds b;
  if (a.has(AttrKey::Start)) b.start = a.get<std::int64_t>(AttrKey::Start);
  if (a.has(AttrKey::Stop)) b.stop = a.get<std::int64_t>(AttrKey::Stop);
  if (a.has(AttrKey::Step)) b.step = a.get<std::int64_t>(AttrKey::Step);
  return b;
}

// The elements of x a slice op selects: shape, strides and first element.
struct Region {
  Dims shape, strides;
  std::int64_t offset = 0;
};

Region slice_region(TermRef op, const Dims& d) {
  const auto axis = static_cast<std::size_t>(op->attrs().get<std::int64_t>(AttrKey::Axis));
  const ops::ResolvedSlice s = ops::resolve_slice(bounds_of(op), d[axis]);
  Region r{d, contiguous_strides(d), 0};
  r.offset = s.start * r.strides[axis];
  r.shape[axis] = s.length;
  r.strides[axis] *= s.step;
  if (s.length == 0) r.offset = 0;
  return r;
}

Region index_region(const Dims& d, std::int64_t at) {
  Region r{Dims(d.begin() + 1, d.end()), {}, 0};
  r.strides = contiguous_strides(r.shape);
  r.offset = at * num_elements(r.shape);
  return r;
}

// Checks that `value` broadcasts to the region's shape.
void check_fits(TermRef op, const Dims& value, const Dims& target) {
  bool fits = value.size() <= target.size();
  for (std::size_t i = 0; fits && i < value.size(); ++i) {
    const std::int64_t v = value[value.size() - 1 - i];
    fits = v == 1 || v == target[target.size() - 1 - i];
  }
  if (!fits)
    fail(op, fmt::format("value of shape {} does not fit a target of shape {}",
                         ops::dims_to_string(value), ops::dims_to_string(target)));
}

template <class T>
void update_typed(T* dst, const Region& r, const T* v, const Dims& vstrides, bool add) {
  const int rank = static_cast<int>(r.shape.size());
  if (num_elements(r.shape) == 0) return;
  auto put = [&](std::int64_t at, std::int64_t from) {
    if (add) {
      if constexpr (std::is_same_v<T, bool>)
        dst[at] = dst[at] || v[from];
      else
        dst[at] += v[from];
    } else {
      dst[at] = v[from];
    }
  };
  if (rank == 0) {
    put(r.offset, 0);
    return;
  }
  absl::InlinedVector<std::int64_t, 6> index(rank, 0);
  std::int64_t at = r.offset, from = 0;
  const std::int64_t n = r.shape.back(), ds = r.strides.back(), vs = vstrides.back();
  for (;;) {
    if (ds == 1 && vs == 1 && !add) {
      std::copy_n(v + from, n, dst + at);
    } else if (ds == 1 && vs == 1 && !std::is_same_v<T, bool>) {
      // Contiguous runs added apart from the general loop, so that they vectorize.
      for (std::int64_t i = 0; i < n; ++i) dst[at + i] += v[from + i];
    } else {
      for (std::int64_t i = 0; i < n; ++i) put(at + i * ds, from + i * vs);
    }
    int d = rank - 2;
    for (; d >= 0; --d) {
      at += r.strides[d];
      from += vstrides[d];
      if (++index[d] < r.shape[d]) break;
      at -= r.strides[d] * r.shape[d];
      from -= vstrides[d] * r.shape[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Elements of a region a thread updates at least.
constexpr std::int64_t kUpdateGrain = std::int64_t{1} << 14;

// out = x with the region set to (or incremented by) value. The copy of x
// and the update are split between threads, the update along the region's
// first axis longer than 1 (each element is written once, as on one thread).
void update(TermRef op, const Array& x, const Region& r, const Array& value, bool add, Array& out) {
  check_fits(op, value.shape(), r.shape);
  if (out.bytes() != x.bytes()) convert_into(x, out);
  const Array v = converted(value, out.dtype());
  // The value's strides broadcast against the region (0 where it has length 1).
  Dims vstrides(r.shape.size(), 0);
  const Dims own = contiguous_strides(v.shape());
  const std::size_t shift = r.shape.size() - v.shape().size();
  for (std::size_t i = 0; i < v.shape().size(); ++i)
    vstrides[shift + i] = v.shape()[i] == 1 ? 0 : own[i];
  ops::visit_dtype(out.dtype(), [&]<class T>(std::type_identity<T>) {
    split_first_long_axis(r.shape, kUpdateGrain, [&](const AxisPart& part) {
      Region piece = r;
      piece.shape = part.shape;
      piece.offset += part.start(r.strides);
      update_typed<T>(out.data<T>(), piece, v.data<T>() + part.start(vstrides), vstrides, add);
    });
  });
}

// The indexing kernels, one entry per indexing op: `shape` checks the
// operands (an index in range, a value that fits) and gives the result's
// shape, `run` fills it.
template <OpKind K>
struct IndexingKernel;

template <>
struct IndexingKernel<OpKind::Index> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const Array& x = *in[0];
    resolve_index(op, x, *in[1]);
    shape.assign(x.shape().begin() + 1, x.shape().end());
  }
  static void run(TermRef op, Operands in, Array& out) {
    const Array& x = *in[0];
    const Region r = index_region(x.shape(), resolve_index(op, x, *in[1]));
    if (out.nbytes() > 0)
      std::memcpy(out.bytes(), x.bytes() + r.offset * ops::dtype_size(x.dtype()), out.nbytes());
  }
};

template <>
struct IndexingKernel<OpKind::Slice> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    shape = slice_region(op, in[0]->shape()).shape;
  }
  static void run(TermRef op, Operands in, Array& out) {
    const Region r = slice_region(op, in[0]->shape());
    strided_copy(*in[0], r.offset, r.shape, r.strides, out);
  }
};

// x's first n rows, then zero rows.
template <>
struct IndexingKernel<OpKind::ResizeRows> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const Array& x = *in[0];
    if (x.rank() == 0) fail(op, "cannot resize a scalar");
    const auto n = in[1]->integer_element(0);
    if (!n || *n < 0)
      fail(op, fmt::format("the number of rows must be >= 0, got {}", in[1]->element(0)));
    shape = x.shape();
    shape[0] = *n;
  }
  static void run(TermRef, Operands in, Array& out) {
    const Array& x = *in[0];
    const std::size_t kept = std::min(x.nbytes(), out.nbytes());
    if (kept > 0) std::memcpy(out.bytes(), x.bytes(), kept);
    if (out.nbytes() > kept) std::memset(out.bytes() + kept, 0, out.nbytes() - kept);
  }
};

// set_index, inc_index: x with row i set to (or incremented by) v.
template <bool Add>
struct IndexUpdate {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const Array& x = *in[0];
    check_fits(op, in[2]->shape(), index_region(x.shape(), resolve_index(op, x, *in[1])).shape);
    shape = x.shape();
  }
  static void run(TermRef op, Operands in, Array& out) {
    const Array& x = *in[0];
    update(op, x, index_region(x.shape(), resolve_index(op, x, *in[1])), *in[2], Add, out);
  }
};
template <>
struct IndexingKernel<OpKind::SetIndex> : IndexUpdate<false> {};
template <>
struct IndexingKernel<OpKind::IncIndex> : IndexUpdate<true> {};

// set_slice, inc_slice: x with a slice set to (or incremented by) v.
template <bool Add>
struct SliceUpdate {
  static void shape(TermRef op, Operands in, Dims& shape) {
    check_fits(op, in[1]->shape(), slice_region(op, in[0]->shape()).shape);
    shape = in[0]->shape();
  }
  static void run(TermRef op, Operands in, Array& out) {
    update(op, *in[0], slice_region(op, in[0]->shape()), *in[1], Add, out);
  }
};
template <>
struct IndexingKernel<OpKind::SetSlice> : SliceUpdate<false> {};
template <>
struct IndexingKernel<OpKind::IncSlice> : SliceUpdate<true> {};

}  // namespace

void indexing_shape(TermRef op, Operands in, Dims& shape) {
  with_family_kernel<IndexingKernel, ops::OpGroup::Indexing>(
      op->kind(), [&]<class K>(K) { K::shape(op, in, shape); });
}

void run_indexing(TermRef op, Operands in, Array& out) {
  with_family_kernel<IndexingKernel, ops::OpGroup::Indexing>(
      op->kind(), [&]<class K>(K) { K::run(op, in, out); });
}

}  // namespace eqsat::backend::detail
