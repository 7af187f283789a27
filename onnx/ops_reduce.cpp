// ONNX's reductions (`Reduce*`, ArgMax, ArgMin, CumSum) and the softmax
// family (Softmax, LogSoftmax, Hardmax), with the axes of each opset: an
// attribute, or an input from ReduceSum 13; before opset 13 the softmax
// family works on the operand flattened to 2-D at `axis`.
#include "build.hpp"
#include "loop_builder.hpp"
#include "op_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace eqsat::onnx {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;
using Out = std::vector<TermRef>;

// The normalized, sorted axes of a reduction node; empty for all axes.
// Sets `noop` when ONNX asks for the identity (empty axes with
// noop_with_empty_axes).
std::vector<std::int64_t> reduce_axes(NodeContext& c, bool& noop) {
  std::vector<std::int64_t> axes;
  if (c.has_attr("axes")) axes = *c.attr_ints("axes");
  if (c.has_input(1)) axes = c.const_ints(1, "axes");
  noop = axes.empty() && c.attr_int("noop_with_empty_axes", 0) != 0;
  const int rank = c.rank(0);
  for (auto& a : axes) a = onnx_axis(c, a, rank);
  std::ranges::sort(axes);
  if (std::ranges::adjacent_find(axes) != axes.end()) c.refuse("an axis repeated in axes");
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  return axes;
}

enum class Pre { None, Abs, Square };
enum class Post { None, Sqrt, Log };

template <OpKind K, Pre pre = Pre::None, Post post = Post::None, bool float_only = false>
Out reduction(NodeContext& c) {
  c.only_attrs({"axes", "keepdims", "noop_with_empty_axes"});
  TermRef x = c.input(0);
  bool noop = false;
  const auto axes = reduce_axes(c, noop);
  if (noop) return {x};
  const DType d = x->tensor_type().dtype;
  if ((float_only || K == OpKind::Mean) && !ops::is_float(d))
    c.refuse(fmt::format("the integer dtype {} (the result would be a float)", ops::dtype_name(d)));
  if (pre == Pre::Abs) x = c.make(OpKind::Abs, {x});
  if (pre == Pre::Square) x = c.make(OpKind::Square, {x});
  const bool keepdims = c.attr_int("keepdims", 1) != 0;
  if (x->tensor_type().rank() == 0) {
    // a scalar: the reduction over no axes is the value itself
  } else {
    x = reduce(c, K, x, axes, keepdims);
  }
  if (post == Post::Sqrt) x = c.make(OpKind::Sqrt, {x});
  if (post == Post::Log) x = c.make(OpKind::Log, {x});
  return {x};
}

// An i64 constant 0..n-1 laid along axis `axis` of rank `rank`.
TermRef iota_along(std::int64_t n, int axis, int rank) {
  ops::Dims dims(static_cast<std::size_t>(rank), 1);
  dims[static_cast<std::size_t>(axis)] = n;
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return int_constant(DType::I64, dims, v);
}

// The index of the first (or last) extreme element along `axis`, kept as
// a size-1 axis. NaN counts as the extreme, as numpy.argmax does.
TermRef arg_extreme(NodeContext& c, TermRef x, int axis, bool is_max, bool last) {
  const auto& dims = x->tensor_type().dims;
  const std::int64_t n = dims[static_cast<std::size_t>(axis)];
  if (n == ops::kUnknownDim)
    c.refuse("the length of the reduced axis is not known when the model is read");
  if (n == 0) c.refuse("an empty axis has no extreme element");
  TermRef m = reduce(c, is_max ? OpKind::Max : OpKind::Min, x, {axis}, true);
  TermRef hit = c.make(OpKind::Eq, {x, m});
  if (ops::is_float(x->tensor_type().dtype))
    hit = c.make(OpKind::LogicalOr, {hit, c.make(OpKind::Ne, {x, x})});
  TermRef idx = iota_along(n, axis, x->tensor_type().rank());
  TermRef none = NodeContext::scalar(DType::I64, last ? -1.0 : static_cast<double>(n));
  TermRef picked = c.make(OpKind::Where, {hit, idx, none});
  return reduce(c, last ? OpKind::Max : OpKind::Min, picked, {axis}, true);
}

template <bool is_max>
Out arg_reduce(NodeContext& c) {
  c.only_attrs({"axis", "keepdims", "select_last_index"});
  TermRef x = c.input(0);
  if (x->tensor_type().rank() == 0) c.refuse("a scalar operand");
  const int axis = onnx_axis(c, c.attr_int("axis", 0), x->tensor_type().rank());
  TermRef r = arg_extreme(c, x, axis, is_max, c.attr_int("select_last_index", 0) != 0);
  if (c.attr_int("keepdims", 1) == 0)
    r = c.make(OpKind::Squeeze, {{AttrKey::Axis, std::int64_t{axis}}}, {r});
  return {r};
}

// Applies `f` along `axis` as ONNX's softmax family does: from opset 13 on
// that axis alone, before it on x flattened to 2-D at `axis`.
template <class F>
TermRef softmax_like(NodeContext& c, F f) {
  TermRef x = c.input(0);
  const int rank = x->tensor_type().rank();
  if (rank == 0) c.refuse("a scalar operand");
  if (c.opset() >= 13) return f(x, onnx_axis(c, c.attr_int("axis", -1), rank));
  const int axis = onnx_axis(c, c.attr_int("axis", 1), rank);
  if (axis == rank - 1) return f(x, axis);
  const ops::Dims& dims = c.static_dims(0);
  std::int64_t rows = 1, cols = 1;
  for (int i = 0; i < rank; ++i) (i < axis ? rows : cols) *= dims[static_cast<std::size_t>(i)];
  return reshape(c, f(reshape(c, x, {rows, cols}), 1), dims);
}

template <OpKind K>
Out softmax(NodeContext& c) {
  c.only_attrs({"axis"});
  return {softmax_like(c, [&](TermRef x, int axis) {
    return c.make(K, {{AttrKey::Axis, std::int64_t{axis}}}, {x});
  })};
}

Out hardmax(NodeContext& c) {
  c.only_attrs({"axis"});
  return {softmax_like(c, [&](TermRef x, int axis) {
    TermRef arg = arg_extreme(c, x, axis, true, false);
    const std::int64_t n = x->tensor_type().dims[static_cast<std::size_t>(axis)];
    TermRef hot = c.make(OpKind::Eq, {iota_along(n, axis, x->tensor_type().rank()), arg});
    return cast_to(
        c,
        c.make(OpKind::BroadcastTo, {{AttrKey::Shape, ops::IntList(x->tensor_type().dims)}}, {hot}),
        x->tensor_type().dtype);
  })};
}

// CumSum as a loop along the axis: the state adds each element in turn
// (numpy.cumsum's order); the exclusive sum is the state before the add.
TermRef cumsum_along(NodeContext& c, TermRef x, int axis) {
  const bool reverse = c.attr_int("reverse", 0) != 0;
  TermRef seq = move_axis(c, x, axis, 0);
  if (reverse) seq = c.make(OpKind::Flip, {{AttrKey::Axis, std::int64_t{0}}}, {seq});
  LoopParts parts;
  parts.sequences.push_back(seq);
  parts.sitsots.push_back(c.make(OpKind::ZerosLike, {reduce(c, OpKind::Sum, seq, {0}, false)}));
  parts.num_nitsot = 1;
  TermRef acc = loop_param(parts, 1);
  parts.body_outputs = {c.make(OpKind::Add, {acc, loop_param(parts, 0)}), acc};
  TermRef y =
      c.make(OpKind::Get, {{AttrKey::Index, std::int64_t{c.attr_int("exclusive", 0) != 0 ? 1 : 0}}},
             {make_loop(c, parts)});
  if (reverse) y = c.make(OpKind::Flip, {{AttrKey::Axis, std::int64_t{0}}}, {y});
  return move_axis(c, y, 0, axis);
}

// An axis known only at run time selects among the sums along every axis
// (they have one shape); an axis out of range fails the run, as `index`
// out of range does.
Out cumsum(NodeContext& c) {
  c.only_attrs({"exclusive", "reverse"});
  TermRef x = c.input(0);
  const int rank = x->tensor_type().rank();
  if (rank == 0) c.refuse("a scalar operand");
  if (c.constant(1)) return {cumsum_along(c, x, onnx_axis(c, c.const_ints(1, "axis").at(0), rank))};
  TermRef a = cast_to(c, c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList{}}}, {c.input(1)}),
                      DType::I64);
  TermRef r = NodeContext::scalar(DType::I64, rank), zero = NodeContext::scalar(DType::I64, 0);
  a = c.make(OpKind::Where, {c.make(OpKind::Lt, {a, zero}), c.make(OpKind::Add, {a, r}), a});
  TermRef safe = c.make(OpKind::Where, {c.make(OpKind::Lt, {a, zero}), r, a});
  TermRef check = c.make(OpKind::Index,
                         {ops::Term::constant(ops::Array(x->tensor_type().dtype, {rank})), safe});
  TermRef y = cumsum_along(c, x, rank - 1);
  for (int axis = rank - 2; axis >= 0; --axis)
    y = c.make(OpKind::Where, {c.make(OpKind::Eq, {a, NodeContext::scalar(DType::I64, axis)}),
                               cumsum_along(c, x, axis), y});
  return {c.make(OpKind::Add, {y, check})};
}

}  // namespace

std::span<const OnnxOp> reduce_ops() {
  static const OnnxOp ops[] = {
      {"ArgMax", arg_reduce<true>},
      {"ArgMin", arg_reduce<false>},
      {"CumSum", cumsum},
      {"Hardmax", hardmax},
      {"LogSoftmax", softmax<OpKind::LogSoftmax>},
      {"ReduceL1", reduction<OpKind::Sum, Pre::Abs>},
      {"ReduceL2", reduction<OpKind::Sum, Pre::Square, Post::Sqrt, true>},
      {"ReduceLogSum", reduction<OpKind::Sum, Pre::None, Post::Log, true>},
      {"ReduceLogSumExp", reduction<OpKind::Logsumexp, Pre::None, Post::None, true>},
      {"ReduceMax", reduction<OpKind::Max>},
      {"ReduceMean", reduction<OpKind::Mean>},
      {"ReduceMin", reduction<OpKind::Min>},
      {"ReduceProd", reduction<OpKind::Prod>},
      {"ReduceSum", reduction<OpKind::Sum>},
      {"ReduceSumSquare", reduction<OpKind::Sum, Pre::Square>},
      {"Softmax", softmax<OpKind::Softmax>},
  };
  return ops;
}

}  // namespace eqsat::onnx
