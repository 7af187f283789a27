// Shape kernels: reshape, transpose, expand_dims, squeeze, broadcast_to,
// flip, concat, stack and dim. Reshape, expand_dims and squeeze are views
// (the executor shares the buffer); the others copy, through one strided
// copy (transpose, broadcast_to, flip) or contiguous block copies.
#include "kernel_groups.hpp"
#include "kernel_support.hpp"
#include "support/internal_error.hpp"

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

// Copies operand blocks along `axis` into `out`: per index of the axes
// before it, operand i contributes `chunk[i]` contiguous bytes.
void join_blocks(const std::vector<Array>& parts, std::int64_t outer,
                 const std::vector<std::size_t>& chunk, Array& out) {
  std::byte* dst = out.bytes();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (chunk[i] > 0) std::memcpy(dst, parts[i].bytes() + o * chunk[i], chunk[i]);
      dst += chunk[i];
    }
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

}  // namespace

void shape_op_shape(TermRef op, Operands in, Dims& shape) {
  const Dims& d = in[0]->shape();
  const ops::Attrs& attrs = op->attrs();
  switch (op->kind()) {
    case OpKind::Reshape:
      return reshape_shape(op, d, shape);
    case OpKind::Transpose: {
      const IntList& perm = attrs.get<IntList>(AttrKey::Perm);
      shape.clear();
      for (auto p : perm) shape.push_back(d[p]);
      return;
    }
    case OpKind::ExpandDims:
      shape = d;
      shape.insert(shape.begin() + attrs.get<std::int64_t>(AttrKey::Axis), 1);
      return;
    case OpKind::Squeeze: {
      const IntList& axes = attrs.get<IntList>(AttrKey::Axis);
      shape.clear();
      for (int i = 0; i < static_cast<int>(d.size()); ++i) {
        if (!std::ranges::binary_search(axes, i)) {
          shape.push_back(d[i]);
        } else if (d[i] != 1) {
          fail(op, fmt::format("axis {} has length {}, not 1", i, d[i]));
        }
      }
      return;
    }
    case OpKind::BroadcastTo:
      return broadcast_to_shape(op, d, shape);
    case OpKind::Flip:
      shape = d;
      return;
    case OpKind::Concat: {
      const auto axis = static_cast<std::size_t>(attrs.get<std::int64_t>(AttrKey::Axis));
      shape = d;
      for (std::size_t i = 1; i < in.size(); ++i) {
        const Dims& e = in[i]->shape();
        for (std::size_t k = 0; k < d.size(); ++k)
          if (k != axis && e[k] != d[k])
            fail(op, fmt::format("shapes {} and {} differ off axis {}", ops::dims_to_string(d),
                                 ops::dims_to_string(e), axis));
        shape[axis] += e[axis];
      }
      return;
    }
    case OpKind::Stack: {
      for (std::size_t i = 1; i < in.size(); ++i)
        if (in[i]->shape() != d)
          fail(op, fmt::format("operand {} has shape {}, expected {}", i + 1,
                               ops::dims_to_string(in[i]->shape()), ops::dims_to_string(d)));
      shape = d;
      shape.insert(shape.begin() + attrs.get<std::int64_t>(AttrKey::Axis),
                   static_cast<std::int64_t>(in.size()));
      return;
    }
    case OpKind::Dim:
      shape.clear();
      return;
    default:
      EQSAT_ASSERT(false) << op->info().name << " is not a shape op";
  }
}

void run_shape_op(TermRef op, Operands in, Array& out) {
  const Array& x = *in[0];
  const Dims& d = x.shape();
  const ops::Attrs& attrs = op->attrs();
  const Dims strides = contiguous_strides(d);
  switch (op->kind()) {
    case OpKind::Reshape:
    case OpKind::ExpandDims:
    case OpKind::Squeeze:
      if (x.nbytes() > 0 && out.bytes() != x.bytes())
        std::memcpy(out.bytes(), x.bytes(), x.nbytes());
      return;
    case OpKind::Transpose: {
      Dims s;
      for (auto p : attrs.get<IntList>(AttrKey::Perm)) s.push_back(strides[p]);
      return strided_copy(x, 0, out.shape(), s, out);
    }
    case OpKind::BroadcastTo: {
      const Dims& target = out.shape();
      Dims s(target.size(), 0);
      const std::size_t shift = target.size() - d.size();
      for (std::size_t i = 0; i < d.size(); ++i) s[shift + i] = d[i] == 1 ? 0 : strides[i];
      return strided_copy(x, 0, target, s, out);
    }
    case OpKind::Flip: {
      Dims s = strides;
      std::int64_t offset = 0;
      for (auto a : attrs.get<IntList>(AttrKey::Axis)) {
        if (d[a] > 0) offset += (d[a] - 1) * strides[a];
        s[a] = -strides[a];
      }
      return strided_copy(x, offset, d, s, out);
    }
    case OpKind::Concat:
    case OpKind::Stack:
      return run_join(op, in, out);
    case OpKind::Dim:
      out.data<std::int64_t>()[0] = d[attrs.get<std::int64_t>(AttrKey::Axis)];
      return;
    default:
      EQSAT_ASSERT(false) << op->info().name << " is not a shape op";
  }
}

}  // namespace eqsat::backend::detail
