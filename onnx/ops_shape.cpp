// ONNX's shape ops and constants: Transpose Reshape Flatten Squeeze
// Unsqueeze Expand Concat Split Slice Tile Pad Shape Size Constant
// ConstantOfShape Range Trilu OneHot EyeLike. Operands that fix a shape
// (shape, axes, starts, pads, repeats) must be known when the model is
// read; Shape of a value with unknown dimensions uses `dim`.
#include "build.hpp"
#include "op_table.hpp"
#include "tensor_proto.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace eqsat::onnx {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;
using Out = std::vector<TermRef>;

// The axes of a Squeeze/Unsqueeze/Slice: the attribute before opset
// `input_from`, the input `index` from then on.
std::optional<std::vector<std::int64_t>> axes_of(NodeContext& c, int input_from,
                                                 std::size_t index) {
  if (c.opset() < input_from) return c.attr_ints("axes");
  if (!c.has_input(index)) return std::nullopt;
  return c.const_ints(index, "axes");
}

Out transpose(NodeContext& c) {
  c.only_attrs({"perm"});
  ops::Attrs attrs;
  if (auto perm = c.attr_ints("perm")) attrs.set(AttrKey::Perm, ops::IntList(*perm));
  return {c.make(OpKind::Transpose, std::move(attrs), {c.input(0)})};
}

Out reshape_op(NodeContext& c) {
  c.only_attrs({"allowzero"});
  const auto shape = c.const_ints(1, "shape");
  const auto& dims = c.type(0).dims;
  const bool allowzero = c.attr_int("allowzero", 0) != 0;
  ops::Dims out;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::int64_t s = shape[i];
    if (s == 0 && !allowzero) {
      if (i >= dims.size()) c.refuse("a 0 in shape past the operand's rank");
      s = dims[i];
      if (s == ops::kUnknownDim)
        c.refuse("a 0 in shape copies a dimension not known when the model is read");
    }
    if (s < -1) c.refuse(fmt::format("the dimension {} in shape", s));
    out.push_back(s);
  }
  if (std::ranges::count(out, -1) > 1) c.refuse("more than one -1 in shape");
  if (out == dims) return {c.input(0)};
  return {c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList(out)}}, {c.input(0)})};
}

Out flatten(NodeContext& c) {
  c.only_attrs({"axis"});
  const auto& dims = c.type(0).dims;
  const int rank = static_cast<int>(dims.size());
  std::int64_t axis = c.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank)
    c.refuse(fmt::format("axis {} for rank {}", c.attr_int("axis", 1), rank));
  std::optional<std::int64_t> rows = 1, cols = 1;
  for (int i = 0; i < rank; ++i) {
    auto& side = i < axis ? rows : cols;
    const auto d = dims[static_cast<std::size_t>(i)];
    side = side && d != ops::kUnknownDim ? std::optional(*side * d) : std::nullopt;
  }
  if (!rows && !cols)
    c.refuse("the dimensions on both sides of axis are not known when the model is read");
  return {reshape(c, c.input(0), {rows.value_or(-1), cols.value_or(-1)})};
}

Out squeeze(NodeContext& c) {
  c.only_attrs({"axes"});
  TermRef x = c.input(0);
  const auto& dims = x->tensor_type().dims;
  const int rank = x->tensor_type().rank();
  std::vector<std::int64_t> axes;
  if (auto given = axes_of(c, 13, 1)) {
    for (auto a : *given) axes.push_back(onnx_axis(c, a, rank));
  } else {
    for (int i = 0; i < rank; ++i) {
      if (dims[static_cast<std::size_t>(i)] == ops::kUnknownDim)
        c.refuse("Squeeze without axes of a dimension not known when the model is read");
      if (dims[static_cast<std::size_t>(i)] == 1) axes.push_back(i);
    }
  }
  if (axes.empty()) return {x};
  return {c.make(OpKind::Squeeze, {{AttrKey::Axis, ops::IntList(axes)}}, {x})};
}

Out unsqueeze(NodeContext& c) {
  c.only_attrs({"axes"});
  TermRef x = c.input(0);
  auto given = axes_of(c, 13, 1);
  if (!given) c.refuse("axes are missing");
  const int out_rank = x->tensor_type().rank() + static_cast<int>(given->size());
  std::vector<std::int64_t> axes;
  for (auto a : *given) axes.push_back(onnx_axis(c, a, out_rank));
  std::ranges::sort(axes);
  if (std::ranges::adjacent_find(axes) != axes.end()) c.refuse("an axis repeated in axes");
  for (auto a : axes) x = c.make(OpKind::ExpandDims, {{AttrKey::Axis, a}}, {x});
  return {x};
}

// y when `shape` is the whole shape of y read at run time (`Shape(y)`
// imports as a stack of y's dims, axis by axis).
std::optional<TermRef> shape_of(TermRef shape) {
  if (shape->kind() != OpKind::Stack || shape->arity() == 0) return std::nullopt;
  const TermRef y = shape->operand(0)->arity() == 1 ? shape->operand(0)->operand(0) : nullptr;
  if (!y || y->tensor_type().rank() != static_cast<int>(shape->arity())) return std::nullopt;
  for (std::size_t i = 0; i < shape->arity(); ++i) {
    const TermRef d = shape->operand(i);
    if (d->kind() != OpKind::Dim || d->operand(0) != y ||
        d->attrs().get<std::int64_t>(AttrKey::Axis) != static_cast<std::int64_t>(i))
      return std::nullopt;
  }
  return y;
}

Out expand(NodeContext& c) {
  c.only_attrs({});
  TermRef x = c.input(0);
  // Expand(x, Shape(y)) of lengths unknown when the model is read: x at the
  // broadcast shape of x and y, failing where they do not broadcast.
  if (!c.constant(1))
    if (const auto y = shape_of(c.input(1))) return {c.make(OpKind::BroadcastLike, {x, *y})};
  const auto shape = c.const_ints(1, "shape");
  ops::Dims target;
  try {
    target = ops::broadcast_dims(x->tensor_type().dims, ops::Dims(shape.begin(), shape.end()));
  } catch (const std::exception& e) {
    c.refuse(e.what());
  }
  if (std::ranges::count(target, ops::kUnknownDim) > 0)
    c.refuse("the expanded shape is not known when the model is read");
  if (target == x->tensor_type().dims) return {x};
  return {c.make(OpKind::BroadcastTo, {{AttrKey::Shape, ops::IntList(target)}}, {x})};
}

Out concat(NodeContext& c) {
  c.only_attrs({"axis"});
  if (!c.has_attr("axis")) c.refuse("the attribute axis is missing");
  std::vector<TermRef> xs;
  for (std::size_t i = 0; i < c.num_inputs(); ++i) xs.push_back(c.input(i));
  const int axis = onnx_axis(c, c.attr_int("axis", 0), xs[0]->tensor_type().rank());
  if (xs.size() == 1) return xs;
  return {c.make(OpKind::Concat, {{AttrKey::Axis, std::int64_t{axis}}}, xs)};
}

Out split(NodeContext& c) {
  c.only_attrs({"axis", "split"});
  TermRef x = c.input(0);
  const int axis = onnx_axis(c, c.attr_int("axis", 0), x->tensor_type().rank());
  const std::int64_t n = x->tensor_type().dims[static_cast<std::size_t>(axis)];
  std::vector<std::int64_t> sizes;
  if (c.opset() < 13 && c.has_attr("split")) sizes = *c.attr_ints("split");
  if (c.opset() >= 13 && c.has_input(1)) sizes = c.const_ints(1, "split");
  const auto parts = static_cast<std::int64_t>(c.node().output_size());
  if (sizes.empty()) {
    if (n == ops::kUnknownDim)
      c.refuse("the split axis has a length not known when the model is read");
    if (n % parts != 0) c.refuse(fmt::format("an axis of {} into {} equal parts", n, parts));
    sizes.assign(static_cast<std::size_t>(parts), n / parts);
  }
  Out out;
  std::int64_t at = 0;
  for (auto s : sizes) {
    out.push_back(slice(c, x, axis, at, at + s));
    at += s;
  }
  return out;
}

// The scalar under reshapes and expand_dims of a one-element value.
TermRef scalar_under(TermRef t) {
  while (t->kind() == OpKind::Reshape || t->kind() == OpKind::ExpandDims) t = t->operand(0);
  return t->tensor_type().rank() == 0 ? t : nullptr;
}

// Slice(x, s, s + 1) along one axis for a start `s` known only at run time
// (a loop's iteration number): (expand_dims (index x s)) along that axis. A
// negative start, which ONNX would count from the end, is refused at run
// time by making the index out of range.
std::optional<TermRef> unit_slice(NodeContext& c) {
  if (c.opset() < 10 || c.constant(1) || c.has_input(4)) return std::nullopt;
  TermRef s = scalar_under(c.input(1)), e = scalar_under(c.input(2));
  if (!s || !e || e->kind() != OpKind::Add) return std::nullopt;
  const ops::Array* one = c.value_of(e->operand(1) == s ? e->operand(0) : e->operand(1));
  if ((e->operand(0) != s && e->operand(1) != s) || !one || one->size() != 1 ||
      one->element(0) != 1)
    return std::nullopt;
  TermRef x = c.input(0);
  const int rank = x->tensor_type().rank();
  const int axis = c.has_input(3) ? onnx_axis(c, c.const_ints(3, "axes").at(0), rank) : 0;
  TermRef front = move_axis(c, x, axis, 0);
  TermRef n = c.make(OpKind::Dim, {{AttrKey::Axis, std::int64_t{0}}}, {front});
  s = cast_to(c, s, DType::I64);
  TermRef safe =
      c.make(OpKind::Where, {c.make(OpKind::Lt, {s, NodeContext::scalar(DType::I64, 0)}), n, s});
  TermRef row = c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{0}}},
                       {c.make(OpKind::Index, {front, safe})});
  return move_axis(c, row, 0, axis);
}

Out slice_op(NodeContext& c) {
  if (auto unit = unit_slice(c)) return {*unit};
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    c.only_attrs({"starts", "ends", "axes"});
    starts = c.attr_ints("starts").value_or(std::vector<std::int64_t>{});
    ends = c.attr_ints("ends").value_or(std::vector<std::int64_t>{});
    axes = c.attr_ints("axes").value_or(std::vector<std::int64_t>{});
  } else {
    c.only_attrs({});
    starts = c.const_ints(1, "starts");
    ends = c.const_ints(2, "ends");
    if (c.has_input(3)) axes = c.const_ints(3, "axes");
    if (c.has_input(4)) steps = c.const_ints(4, "steps");
  }
  TermRef x = c.input(0);
  const int rank = x->tensor_type().rank();
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.refuse("starts, ends, axes and steps of different lengths");
  for (std::size_t i = 0; i < starts.size(); ++i) {
    if (steps[i] == 0) c.refuse("a step of 0");
    x = slice(c, x, onnx_axis(c, axes[i], rank), starts[i], ends[i], steps[i]);
  }
  return {x};
}

Out tile(NodeContext& c) {
  c.only_attrs({});
  const auto repeats = c.const_ints(1, "repeats");
  const ops::Dims dims = c.static_dims(0);
  if (repeats.size() != dims.size()) c.refuse("repeats of another length than the rank");
  ops::Dims spread, target, out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (repeats[i] < 0) c.refuse("a negative repeat");
    spread.insert(spread.end(), {1, dims[i]});
    target.insert(target.end(), {repeats[i], dims[i]});
    out.push_back(repeats[i] * dims[i]);
  }
  TermRef x = reshape(c, c.input(0), spread);
  x = c.make(OpKind::BroadcastTo, {{AttrKey::Shape, ops::IntList(target)}}, {x});
  return {reshape(c, x, out)};
}

// Pads (or crops, for a negative amount) axis `axis` of `x` by `before` and `after`.
TermRef pad_axis(NodeContext& c, TermRef x, int axis, std::int64_t before, std::int64_t after,
                 const std::string& mode, TermRef value) {
  const std::int64_t n = x->tensor_type().dims[static_cast<std::size_t>(axis)];
  if (before < 0) x = slice(c, x, axis, -before, std::nullopt);
  if (after < 0) x = slice(c, x, axis, 0, n + after - std::max<std::int64_t>(0, -before));
  before = std::max<std::int64_t>(before, 0);
  after = std::max<std::int64_t>(after, 0);
  if (before == 0 && after == 0) return x;
  const std::int64_t len = x->tensor_type().dims[static_cast<std::size_t>(axis)];
  auto block = [&](std::int64_t size, bool at_end) -> TermRef {
    ops::Dims d = x->tensor_type().dims;
    d[static_cast<std::size_t>(axis)] = size;
    if (mode == "constant")
      return c.make(OpKind::Full,
                    {{AttrKey::Shape, ops::IntList(d)}, {AttrKey::Dtype, x->tensor_type().dtype}},
                    {value});
    if (mode == "edge") {
      TermRef edge = at_end ? slice(c, x, axis, len - 1, len) : slice(c, x, axis, 0, 1);
      return c.make(OpKind::BroadcastTo, {{AttrKey::Shape, ops::IntList(d)}}, {edge});
    }
    // reflect: the mirror image without the edge element
    if (size >= len) c.refuse("reflect padding as wide as the axis");
    const std::int64_t stop = len - 2 - size;
    return at_end ? slice(c, x, axis, len - 2, stop < 0 ? std::nullopt : std::optional(stop), -1)
                  : slice(c, x, axis, size, 0, -1);
  };
  std::vector<TermRef> parts;
  if (before > 0) parts.push_back(block(before, false));
  parts.push_back(x);
  if (after > 0) parts.push_back(block(after, true));
  return c.make(OpKind::Concat, {{AttrKey::Axis, std::int64_t{axis}}}, parts);
}

Out pad(NodeContext& c) {
  TermRef x = c.input(0);
  std::vector<std::int64_t> pads;
  TermRef value = NodeContext::scalar_like(x, 0);
  if (c.opset() < 11) {
    c.only_attrs({"mode", "pads", "value"});
    pads = c.attr_ints("pads").value_or(std::vector<std::int64_t>{});
    value = NodeContext::scalar_like(x, c.attr_float("value", 0));
  } else {
    c.only_attrs({"mode"});
    pads = c.const_ints(1, "pads");
    if (c.has_input(2))
      value = c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList{}}}, {c.input(2)});
    if (c.has_input(3)) c.refuse("the axes input");
  }
  const std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    c.refuse(fmt::format("mode '{}'", mode));
  const ops::Dims dims = c.static_dims(0);
  const auto rank = dims.size();
  if (pads.size() != 2 * rank) c.refuse("pads of another length than twice the rank");
  for (std::size_t i = 0; i < rank; ++i)
    x = pad_axis(c, x, static_cast<int>(i), pads[i], pads[i + rank], mode, value);
  return {x};
}

Out shape(NodeContext& c) {
  c.only_attrs({"start", "end"});
  TermRef x = c.input(0);
  const auto& dims = x->tensor_type().dims;
  const auto rank = static_cast<std::int64_t>(dims.size());
  auto clamp = [&](std::int64_t v) {
    return std::clamp(v < 0 ? v + rank : v, std::int64_t{0}, rank);
  };
  const std::int64_t start = clamp(c.attr_int("start", 0)), end = clamp(c.attr_int("end", rank));
  std::vector<TermRef> parts;
  std::vector<std::int64_t> known;
  bool all_known = true;
  for (auto i = start; i < end; ++i) {
    const auto d = dims[static_cast<std::size_t>(i)];
    all_known = all_known && d != ops::kUnknownDim;
    known.push_back(d);
    parts.push_back(c.make(OpKind::Dim, {{AttrKey::Axis, i}}, {x}));
  }
  if (all_known)
    return {int_constant(DType::I64, {static_cast<std::int64_t>(known.size())}, known)};
  return {c.make(OpKind::Stack, {{AttrKey::Axis, std::int64_t{0}}}, parts)};
}

Out size(NodeContext& c) {
  c.only_attrs({});
  const auto n = c.type(0).num_elements();
  if (n == ops::kUnknownDim)
    c.refuse("the size of an operand with dimensions not known when the model is read");
  return {NodeContext::scalar(DType::I64, static_cast<double>(n))};
}

Out constant(NodeContext& c) {
  if (const auto* t = c.attr_tensor("value")) return {ops::Term::constant(read_tensor(*t))};
  if (c.has_attr("value_float"))
    return {NodeContext::scalar(DType::F32, c.attr_float("value_float", 0))};
  if (c.has_attr("value_int")) return {int_constant(DType::I64, {}, {c.attr_int("value_int", 0)})};
  if (c.has_attr("value_floats")) {
    const auto v = c.attr_floats("value_floats");
    ops::Array a(DType::F32, {static_cast<std::int64_t>(v.size())});
    for (std::size_t i = 0; i < v.size(); ++i) a.data<float>()[i] = static_cast<float>(v[i]);
    return {ops::Term::constant(a)};
  }
  if (c.has_attr("value_ints")) {
    const auto v = *c.attr_ints("value_ints");
    return {int_constant(DType::I64, {static_cast<std::int64_t>(v.size())}, v)};
  }
  c.refuse("a sparse or string value");
}

Out constant_of_shape(NodeContext& c) {
  c.only_attrs({"value"});
  const auto shape = c.const_ints(0, "shape");
  ops::Array v = ops::Array::scalar(DType::F32, 0);
  if (const auto* t = c.attr_tensor("value")) v = read_tensor(*t);
  if (v.size() != 1) c.refuse("a value of more than one element");
  for (auto s : shape)
    if (s < 0) c.refuse("a negative dimension");
  return {ops::Term::constant(
      ops::Array::filled(v.dtype(), ops::Dims(shape.begin(), shape.end()), v.element(0)))};
}

Out range(NodeContext& c) {
  c.only_attrs({});
  TermRef start = c.input(0), limit = c.input(1), delta = c.input(2);
  const DType d = start->tensor_type().dtype;
  if (d == DType::Bool) c.refuse("a bool range");
  if (d == DType::I64 && !(c.constant(0) && c.constant(1) && c.constant(2)))
    c.refuse("an int64 range computed at run time (its length would be computed in float64)");
  auto f64 = [&](TermRef t) { return cast_to(c, t, DType::F64); };
  // number of elements: max(ceil((limit - start) / delta), 0)
  TermRef n =
      c.make(OpKind::Ceil,
             {c.make(OpKind::Div, {c.make(OpKind::Sub, {f64(limit), f64(start)}), f64(delta)})});
  n = cast_to(c, c.make(OpKind::Maximum, {n, NodeContext::scalar(DType::F64, 0)}), DType::I64);
  TermRef i = c.make(OpKind::Arange, {{AttrKey::Dtype, ops::is_float(d) ? DType::F64 : d}}, {n});
  if (ops::is_float(d))
    return {cast_to(c, c.make(OpKind::Add, {c.make(OpKind::Mul, {i, f64(delta)}), f64(start)}), d)};
  return {c.make(OpKind::Add, {c.make(OpKind::Mul, {i, delta}), start})};
}

Out trilu(NodeContext& c) {
  c.only_attrs({"upper"});
  const ops::Dims& dims = c.static_dims(0);
  if (dims.size() < 2) c.refuse("a rank below 2");
  const bool upper = c.attr_int("upper", 1) != 0;
  const std::int64_t rows = dims[dims.size() - 2], cols = dims.back();
  // the diagonal of each element, j - i, compared with k (known or not)
  std::vector<std::int64_t> diagonal;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) diagonal.push_back(j - i);
  TermRef k =
      c.has_input(1)
          ? cast_to(c, c.make(OpKind::Reshape, {{AttrKey::Shape, ops::IntList{}}}, {c.input(1)}),
                    DType::I64)
          : NodeContext::scalar(DType::I64, 0);
  TermRef m = c.make(upper ? OpKind::Ge : OpKind::Le,
                     {int_constant(DType::I64, {rows, cols}, diagonal), k});
  TermRef x = c.input(0);
  return {c.make(OpKind::Where, {m, x, NodeContext::scalar_like(x, 0)})};
}

Out one_hot(NodeContext& c) {
  c.only_attrs({"axis"});
  TermRef idx = c.input(0);
  const auto depth_v = c.constant(1);
  if (!depth_v)
    c.refuse("input 1 (depth) is computed at run time; eqsat needs it when the model is read");
  const double depth_f = depth_v->element(0);
  const auto depth = static_cast<std::int64_t>(depth_f);
  if (depth < 1 || static_cast<double>(depth) != depth_f)
    c.refuse("a depth that is not a positive integer");
  TermRef values = c.input(2);
  const int out_rank = idx->tensor_type().rank() + 1;
  const int axis = onnx_axis(c, c.attr_int("axis", -1), out_rank);
  if (!ops::is_integer(idx->tensor_type().dtype)) {
    // float indices: ONNX casts them to integers (truncating)
    idx = cast_to(c, idx, DType::I64);
  }
  idx = cast_to(c, idx, DType::I64);
  TermRef neg = c.make(OpKind::Lt, {idx, NodeContext::scalar(DType::I64, 0)});
  idx = c.make(
      OpKind::Where,
      {neg, c.make(OpKind::Add, {idx, NodeContext::scalar(DType::I64, static_cast<double>(depth))}),
       idx});
  idx = c.make(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{axis}}}, {idx});
  ops::Dims d(static_cast<std::size_t>(out_rank), 1);
  d[static_cast<std::size_t>(axis)] = depth;
  std::vector<std::int64_t> iota;
  for (std::int64_t i = 0; i < depth; ++i) iota.push_back(i);
  TermRef hot = c.make(OpKind::Eq, {idx, int_constant(DType::I64, d, iota)});
  TermRef off = c.make(OpKind::Index, {values, NodeContext::scalar(DType::I64, 0)});
  TermRef on = c.make(OpKind::Index, {values, NodeContext::scalar(DType::I64, 1)});
  return {c.make(OpKind::Where, {hot, on, off})};
}

Out eye_like(NodeContext& c) {
  c.only_attrs({"dtype", "k"});
  const ops::Dims& dims = c.static_dims(0);
  if (dims.size() != 2) c.refuse("a rank other than 2");
  const DType d = c.has_attr("dtype") ? dtype_attr(c, c.attr_int("dtype", 1)) : c.type(0).dtype;
  const std::int64_t k = c.attr_int("k", 0);
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < dims[0]; ++i)
    for (std::int64_t j = 0; j < dims[1]; ++j) v.push_back(j - i == k);
  return {int_constant(d, dims, v)};
}

const OnnxOp kOps[] = {
    {"Concat", concat},
    {"Constant", constant},
    {"ConstantOfShape", constant_of_shape},
    {"Expand", expand},
    {"EyeLike", eye_like},
    {"Flatten", flatten},
    {"OneHot", one_hot},
    {"Pad", pad},
    {"Range", range},
    {"Reshape", reshape_op},
    {"Shape", shape},
    {"Size", size},
    {"Slice", slice_op},
    {"Split", split},
    {"Squeeze", squeeze},
    {"Tile", tile},
    {"Transpose", transpose},
    {"Trilu", trilu},
    {"Unsqueeze", unsqueeze},
};

}  // namespace

std::span<const OnnxOp> shape_ops() {
  return kOps;
}

}  // namespace eqsat::onnx
