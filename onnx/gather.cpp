#include "gather.hpp"

#include "build.hpp"

#include <fmt/format.h>

namespace eqsat::onnx {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;

namespace {
constexpr std::int64_t kMaxTaken = 4096;
}

TermRef take(const NodeContext& c, TermRef data, TermRef indices, int axis) {
  const ops::TensorType& it = indices->tensor_type();
  if (!ops::is_integer(it.dtype)) c.refuse("indices that are not integers");
  if (!it.is_static()) c.refuse("indices of a shape not known when the model is read");
  const std::int64_t n = it.num_elements();
  if (n > kMaxTaken) c.refuse(fmt::format("more than {} indices", kMaxTaken));
  const ops::TensorType& dt = data->tensor_type();
  const int rank = dt.rank();
  TermRef front = move_axis(c, data, axis, 0);
  TermRef flat = reshape(c, indices, {n});
  std::vector<TermRef> rows;
  for (std::int64_t j = 0; j < n; ++j) {
    TermRef i =
        c.make(OpKind::Index, {flat, NodeContext::scalar(DType::I64, static_cast<double>(j))});
    rows.push_back(c.make(OpKind::Index, {front, i}));
  }
  ops::Dims rest;
  for (int d = 0; d < rank; ++d)
    if (d != axis) rest.push_back(dt.dims[static_cast<std::size_t>(d)]);
  TermRef stacked;
  if (n == 0) {
    if (std::ranges::count(rest, ops::kUnknownDim) > 0)
      c.refuse("no indices over dimensions not known when the model is read");
    ops::Dims d{0};
    d.insert(d.end(), rest.begin(), rest.end());
    stacked = ops::Term::constant(ops::Array(dt.dtype, d));
  } else {
    stacked = c.make(OpKind::Stack, {{AttrKey::Axis, std::int64_t{0}}}, rows);
  }
  ops::Dims shape = it.dims;
  shape.insert(shape.end(), rest.begin(), rest.end());
  if (std::ranges::count(shape, ops::kUnknownDim) > 1)
    c.refuse("data with more than one dimension not known when the model is read");
  TermRef y = reshape(c, stacked, shape);
  const int rs = it.rank();
  if (axis == 0 || rs == 0) return y;
  ops::IntList perm;
  for (int d = 0; d < axis; ++d) perm.push_back(rs + d);
  for (int d = 0; d < rs; ++d) perm.push_back(d);
  for (int d = axis; d < rank - 1; ++d) perm.push_back(rs + d);
  return c.make(OpKind::Transpose, {{AttrKey::Perm, perm}}, {y});
}

TermRef take_along_axis(const NodeContext& c, TermRef data, TermRef indices, int axis) {
  const ops::TensorType& dt = data->tensor_type();
  const ops::TensorType& it = indices->tensor_type();
  if (!ops::is_integer(it.dtype)) c.refuse("indices that are not integers");
  if (dt.dtype == DType::Bool) c.refuse("bool data");
  if (dt.rank() != it.rank()) c.refuse("indices of another rank than the data");
  const int rank = dt.rank();
  const std::int64_t k = dt.dims[static_cast<std::size_t>(axis)];
  if (k == ops::kUnknownDim)
    c.refuse("the gathered axis has a length not known when the model is read");
  // the data restricted to the indices' extent along the other axes
  for (int d = 0; d < rank; ++d) {
    const auto di = it.dims[static_cast<std::size_t>(d)], dd = dt.dims[static_cast<std::size_t>(d)];
    if (d == axis) continue;
    if (di == ops::kUnknownDim || dd == ops::kUnknownDim) {
      if (di != dd) c.refuse("dimensions not known when the model is read");
      continue;
    }
    if (di > dd) c.refuse("indices larger than the data along an axis");
    if (di < dd) data = slice(c, data, d, 0, di);
  }
  TermRef idx = cast_to(c, indices, DType::I64);
  TermRef kk = NodeContext::scalar(DType::I64, static_cast<double>(k));
  TermRef zero = NodeContext::scalar(DType::I64, 0);
  TermRef valid = c.make(OpKind::LogicalAnd, {c.make(OpKind::Ge, {idx, c.make(OpKind::Neg, {kk})}),
                                              c.make(OpKind::Lt, {idx, kk})});
  idx =
      c.make(OpKind::Where, {c.make(OpKind::Lt, {idx, zero}), c.make(OpKind::Add, {idx, kk}), idx});
  ops::Dims iota_dims(static_cast<std::size_t>(rank) + 1, 1);
  iota_dims.back() = k;
  std::vector<std::int64_t> iota;
  for (std::int64_t i = 0; i < k; ++i) iota.push_back(i);
  TermRef mask =
      c.make(OpKind::Eq, {c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{rank}}}, {idx}),
                          int_constant(DType::I64, iota_dims, iota)});
  TermRef spread = c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{axis}}},
                          {move_axis(c, data, axis, rank - 1)});
  TermRef picked = c.make(OpKind::Where, {mask, spread, NodeContext::scalar(dt.dtype, 0)});
  picked = c.make(OpKind::Sum, {{AttrKey::Axis, std::int64_t{rank}}}, {picked});
  // an index out of range makes (index (0) bad) fail the run
  TermRef bad = c.make(OpKind::Sum, {cast_to(c, c.make(OpKind::LogicalNot, {valid}), DType::I64)});
  TermRef check = c.make(OpKind::Index, {ops::Term::constant(ops::Array(dt.dtype, {1})), bad});
  return c.make(OpKind::Add, {picked, check});
}

}  // namespace eqsat::onnx
