// Shape kernels: reshape, transpose, expand_dims, squeeze, broadcast_to,
// broadcast_like, flip, concat, stack and dim. Reshape, expand_dims and
// squeeze are views (the executor shares the buffer); the others copy,
// through one strided copy (transpose, the broadcasts, flip) or contiguous
// block copies.
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "support/internal_error.hpp"
#include "thread_pool.hpp"

#include <array>
#include <cstring>

namespace eqsat::backend::detail {

namespace {

using ops::AttrKey;
using ops::IntList;
using ops::OpKind;

void reshape_shape(TermRef op, const Dims& in, Dims& shape) {
  const IntList& target = op->attrs().get<IntList>(AttrKey::Shape);
  const std::int64_t n = num_elements(in);
  std::int64_t known = 1;
  int inferred = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1)
      inferred = static_cast<int>(i);
    else
      known *= target[i];
  }
  shape.assign(target.begin(), target.end());
  const bool fits = inferred >= 0 ? (known != 0 && n % known == 0) : known == n;
  if (!fits) {
    // Written as in the graph file: -1 stays -1.
    std::string wanted;
    for (auto d : target) wanted += (wanted.empty() ? "" : " ") + std::to_string(d);
    fail(op, fmt::format("cannot reshape {} elements of shape {} into ({})", n,
                         ops::dims_to_string(in), wanted));
  }
  if (inferred >= 0) shape[inferred] = n / known;
}

void broadcast_to_shape(TermRef op, const Dims& in, Dims& shape) {
  const IntList& target = op->attrs().get<IntList>(AttrKey::Shape);
  bool fits = in.size() <= target.size();
  for (std::size_t i = 0; fits && i < in.size(); ++i) {
    const std::int64_t d = in[in.size() - 1 - i];
    fits = d == 1 || d == target[target.size() - 1 - i];
  }
  if (!fits)
    fail(op, fmt::format("cannot broadcast shape {} to {}", ops::dims_to_string(in),
                         ops::dims_to_string(target)));
  shape.assign(target.begin(), target.end());
}

// Copies x into `out`, whose shape x broadcasts to (a stride 0 along each
// axis x lacks or has of length 1).
void broadcast_copy(const Array& x, Array& out) {
  const Dims& d = x.shape();
  const Dims strides = contiguous_strides(d);
  const Dims& target = out.shape();
  Dims s(target.size(), 0);
  const std::size_t shift = target.size() - d.size();
  for (std::size_t i = 0; i < d.size(); ++i) s[shift + i] = d[i] == 1 ? 0 : strides[i];
  strided_copy(x, 0, target, s, out);
}

// Bytes of `out` a thread fills at least in a join.
constexpr std::int64_t kJoinGrain = std::int64_t{1} << 17;

// memcpy, inlined for one element of 8 or 4 bytes: a stack along the last
// axis copies its operands an element at a time.
inline void copy_bytes(std::byte* to, const std::byte* from, std::int64_t n) {
  if (n == 8)
    std::memcpy(to, from, 8);
  else if (n == 4)
    std::memcpy(to, from, 4);
  else
    std::memcpy(to, from, n);
}

// Copies operand blocks along `axis` into `out`: per index of the axes
// before it (a row of `out`), operand i contributes `chunk[i]` contiguous
// bytes. Threads take ranges of `out`'s bytes (a join along the first axis
// has a single row, so ranges of rows would not split it): whole rows block
// by block, and the part of a row a range starts or ends inside.
void join_blocks(const std::vector<Array>& parts, std::int64_t outer,
                 const std::vector<std::size_t>& chunk, Array& out) {
  std::int64_t row = 0;
  for (std::size_t c : chunk) row += static_cast<std::int64_t>(c);
  std::byte* dst = out.bytes();
  // Bytes [from, to) of row o.
  auto part_of_row = [&](std::int64_t o, std::int64_t from, std::int64_t to) {
    std::int64_t start = 0;
    for (std::size_t i = 0; i < chunk.size() && start < to; ++i) {
      const auto n = static_cast<std::int64_t>(chunk[i]);
      const std::int64_t lo = std::max(from, start), hi = std::min(to, start + n);
      if (lo < hi) copy_bytes(dst + o * row + lo, parts[i].bytes() + o * n + (lo - start), hi - lo);
      start += n;
    }
  };
  parallel_for(outer * row, kJoinGrain, [&](std::int64_t b0, std::int64_t b1) {
    std::int64_t o0 = b0 / row;
    const std::int64_t o1 = b1 / row;
    if (o0 == o1) return part_of_row(o0, b0 % row, b1 % row);
    if (b0 % row != 0) part_of_row(o0++, b0 % row, row);
    std::byte* to = dst + o0 * row;
    for (std::int64_t o = o0; o < o1; ++o)
      for (std::size_t i = 0; i < parts.size(); ++i) {
        copy_bytes(to, parts[i].bytes() + o * chunk[i], static_cast<std::int64_t>(chunk[i]));
        to += chunk[i];
      }
    if (b1 % row != 0) part_of_row(o1, 0, b1 % row);
  });
}

std::int64_t product(const Dims& d, std::size_t from, std::size_t to) {
  std::int64_t n = 1;
  for (std::size_t i = from; i < to; ++i) n *= d[i];
  return n;
}

void run_join(TermRef op, Operands in, Array& out) {
  const auto axis = static_cast<std::size_t>(op->attrs().get<std::int64_t>(AttrKey::Axis));
  std::vector<Array> parts;
  std::vector<std::size_t> chunk;
  const std::size_t elem = ops::dtype_size(out.dtype());
  for (const Array* a : in) {
    parts.push_back(converted(*a, out.dtype()));
    const Dims& d = a->shape();
    // concat: the operand's axis and everything after; stack: the whole
    // trailing block from the new axis on.
    chunk.push_back(static_cast<std::size_t>(product(d, axis, d.size())) * elem);
  }
  join_blocks(parts, product(out.shape(), 0, axis), chunk, out);
}

// The shape kernels, one entry per shape op: `shape` checks the operands
// and gives the result's shape, `run` fills the result.
template <OpKind K>
struct ShapeKernel;

// Views: the executor shares the operand's buffer; a copy only when not.
struct ViewCopy {
  static void run(TermRef, Operands in, Array& out) {
    const Array& x = *in[0];
    if (x.nbytes() > 0 && out.bytes() != x.bytes()) std::memcpy(out.bytes(), x.bytes(), x.nbytes());
  }
};

template <>
struct ShapeKernel<OpKind::Reshape> : ViewCopy {
  static void shape(TermRef op, Operands in, Dims& shape) {
    reshape_shape(op, in[0]->shape(), shape);
  }
};

template <>
struct ShapeKernel<OpKind::ExpandDims> : ViewCopy {
  static void shape(TermRef op, Operands in, Dims& shape) {
    shape = in[0]->shape();
    shape.insert(shape.begin() + op->attrs().get<std::int64_t>(AttrKey::Axis), 1);
  }
};

template <>
struct ShapeKernel<OpKind::Squeeze> : ViewCopy {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const Dims& d = in[0]->shape();
    const IntList& axes = op->attrs().get<IntList>(AttrKey::Axis);
    shape.clear();
    for (int i = 0; i < static_cast<int>(d.size()); ++i) {
      if (!std::ranges::binary_search(axes, i)) {
        shape.push_back(d[i]);
      } else if (d[i] != 1) {
        fail(op, fmt::format("axis {} has length {}, not 1", i, d[i]));
      }
    }
  }
};

template <>
struct ShapeKernel<OpKind::Transpose> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    shape.clear();
    for (auto p : op->attrs().get<IntList>(AttrKey::Perm)) shape.push_back(in[0]->shape()[p]);
  }
  static void run(TermRef op, Operands in, Array& out) {
    const Dims strides = contiguous_strides(in[0]->shape());
    Dims s;
    for (auto p : op->attrs().get<IntList>(AttrKey::Perm)) s.push_back(strides[p]);
    strided_copy(*in[0], 0, out.shape(), s, out);
  }
};

template <>
struct ShapeKernel<OpKind::BroadcastTo> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    broadcast_to_shape(op, in[0]->shape(), shape);
  }
  static void run(TermRef, Operands in, Array& out) { broadcast_copy(*in[0], out); }
};

// x at the broadcast shape of x and y: fails where the two do not
// broadcast, with the elementwise ops' message.
template <>
struct ShapeKernel<OpKind::BroadcastLike> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const std::array<const Dims*, 2> shapes{&in[0]->shape(), &in[1]->shape()};
    broadcast_shapes(op, shapes, shape);
  }
  static void run(TermRef, Operands in, Array& out) { broadcast_copy(*in[0], out); }
};

template <>
struct ShapeKernel<OpKind::Flip> {
  static void shape(TermRef, Operands in, Dims& shape) { shape = in[0]->shape(); }
  static void run(TermRef op, Operands in, Array& out) {
    const Dims& d = in[0]->shape();
    const Dims strides = contiguous_strides(d);
    Dims s = strides;
    std::int64_t offset = 0;
    for (auto a : op->attrs().get<IntList>(AttrKey::Axis)) {
      if (d[a] > 0) offset += (d[a] - 1) * strides[a];
      s[a] = -strides[a];
    }
    strided_copy(*in[0], offset, d, s, out);
  }
};

template <>
struct ShapeKernel<OpKind::Concat> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const Dims& d = in[0]->shape();
    const auto axis = static_cast<std::size_t>(op->attrs().get<std::int64_t>(AttrKey::Axis));
    shape = d;
    for (std::size_t i = 1; i < in.size(); ++i) {
      const Dims& e = in[i]->shape();
      for (std::size_t k = 0; k < d.size(); ++k)
        if (k != axis && e[k] != d[k])
          fail(op, fmt::format("shapes {} and {} differ off axis {}", ops::dims_to_string(d),
                               ops::dims_to_string(e), axis));
      shape[axis] += e[axis];
    }
  }
  static void run(TermRef op, Operands in, Array& out) { run_join(op, in, out); }
};

template <>
struct ShapeKernel<OpKind::Stack> {
  static void shape(TermRef op, Operands in, Dims& shape) {
    const Dims& d = in[0]->shape();
    for (std::size_t i = 1; i < in.size(); ++i)
      if (in[i]->shape() != d)
        fail(op, fmt::format("operand {} has shape {}, expected {}", i + 1,
                             ops::dims_to_string(in[i]->shape()), ops::dims_to_string(d)));
    shape = d;
    shape.insert(shape.begin() + op->attrs().get<std::int64_t>(AttrKey::Axis),
                 static_cast<std::int64_t>(in.size()));
  }
  static void run(TermRef op, Operands in, Array& out) { run_join(op, in, out); }
};

template <>
struct ShapeKernel<OpKind::Dim> {
  static void shape(TermRef, Operands, Dims& shape) { shape.clear(); }
  static void run(TermRef op, Operands in, Array& out) {
    out.data<std::int64_t>()[0] = in[0]->shape()[op->attrs().get<std::int64_t>(AttrKey::Axis)];
  }
};

}  // namespace

void shape_op_shape(TermRef op, Operands in, Dims& shape) {
  with_family_kernel<ShapeKernel, ops::OpGroup::Shape>(
      op->kind(), [&]<class K>(K) { K::shape(op, in, shape); });
}

void run_shape_op(TermRef op, Operands in, Array& out) {
  with_family_kernel<ShapeKernel, ops::OpGroup::Shape>(op->kind(),
                                                       [&]<class K>(K) { K::run(op, in, out); });
}

}  // namespace eqsat::backend::detail
