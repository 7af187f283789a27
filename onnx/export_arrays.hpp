// The export table's entries for reductions, softmax, dot, shape, indexing
// and creation ops, loops and the ops with no value of their own
// (export_table.hpp).
#pragma once

#include "export_table.hpp"

#include <limits>

namespace eqsat::onnx {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;

// Reductions and softmax.

template <>
struct OnnxExport<OpKind::Sum> {
  static std::string write(ExportNode& n) { return n.reduce("ReduceSum"); }
};

template <>
struct OnnxExport<OpKind::Prod> {
  static std::string write(ExportNode& n) { return n.reduce("ReduceProd"); }
};

template <>
struct OnnxExport<OpKind::Max> {
  static std::string write(ExportNode& n) { return n.reduce("ReduceMax"); }
};

template <>
struct OnnxExport<OpKind::Min> {
  static std::string write(ExportNode& n) { return n.reduce("ReduceMin"); }
};

template <>
struct OnnxExport<OpKind::Mean> {
  static std::string write(ExportNode& n) { return n.reduce("ReduceMean"); }
};

template <>
struct OnnxExport<OpKind::Logsumexp> {
  static std::string write(ExportNode& n) { return n.reduce("ReduceLogSumExp"); }
};

template <>
struct OnnxExport<OpKind::Softmax> {
  static std::string write(ExportNode& n) { return n.softmax("Softmax"); }
};

template <>
struct OnnxExport<OpKind::LogSoftmax> {
  static std::string write(ExportNode& n) { return n.softmax("LogSoftmax"); }
};

template <>
struct OnnxExport<OpKind::Dot> {
  static std::string write(ExportNode& n) { return n.binary("MatMul"); }
};

// Shape ops.

template <>
struct OnnxExport<OpKind::Reshape> {
  static std::string write(ExportNode& n) {
    auto& r = n.w.node("Reshape", {n.in(0), n.w.ints(n.a.get<ops::IntList>(AttrKey::Shape))});
    GraphWriter::attr_int(r, "allowzero", 1);
    return r.output(0);
  }
};

template <>
struct OnnxExport<OpKind::Transpose> {
  static std::string write(ExportNode& n) {
    auto& r = n.w.node("Transpose", {n.in(0)});
    if (n.a.has(AttrKey::Perm))
      GraphWriter::attr_ints(r, "perm", n.a.get<ops::IntList>(AttrKey::Perm));
    return r.output(0);
  }
};

template <>
struct OnnxExport<OpKind::ExpandDims> {
  static std::string write(ExportNode& n) {
    return n.w.node("Unsqueeze", {n.in(0), n.w.ints(axes_of(n.a, n.rank0))}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::Squeeze> {
  static std::string write(ExportNode& n) {
    return n.w.node("Squeeze", {n.in(0), n.w.ints(axes_of(n.a, n.rank0))}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::BroadcastTo> {
  static std::string write(ExportNode& n) {
    return n.w.node("Expand", {n.in(0), n.w.ints(n.a.get<ops::IntList>(AttrKey::Shape))}).output(0);
  }
};

// ONNX's Expand broadcasts its input against the shape it is given, so
// Expand(x, Shape(y)) fails exactly where x and y do not broadcast.
template <>
struct OnnxExport<OpKind::BroadcastLike> {
  static std::string write(ExportNode& n) {
    return n.w.node("Expand", {n.in(0), n.w.node("Shape", {n.in(1)}).output(0)}).output(0);
  }
};

// A Slice with step -1 along each flipped axis.
template <>
struct OnnxExport<OpKind::Flip> {
  static std::string write(ExportNode& n) {
    GraphWriter& w = n.w;
    const auto axes = axes_of(n.a, n.rank0);
    const auto lo = std::numeric_limits<std::int64_t>::min();
    return w
        .node("Slice", {n.in(0), w.ints(std::vector<std::int64_t>(axes.size(), -1)),
                        w.ints(std::vector<std::int64_t>(axes.size(), lo)), w.ints(axes),
                        w.ints(std::vector<std::int64_t>(axes.size(), -1))})
        .output(0);
  }
};

template <>
struct OnnxExport<OpKind::Concat> {
  static std::string write(ExportNode& n) {
    std::vector<std::string> xs;
    for (std::size_t i = 0; i < n.t->arity(); ++i) xs.push_back(n.same(i));
    auto& r = n.w.node("Concat", xs);
    GraphWriter::attr_int(r, "axis", axes_of(n.a, n.rank0).at(0));
    return r.output(0);
  }
};

// Each operand unsqueezed at the new axis, then concatenated along it.
template <>
struct OnnxExport<OpKind::Stack> {
  static std::string write(ExportNode& n) {
    const auto axis = axes_of(n.a, n.rank0 + 1).at(0);
    std::vector<std::string> xs;
    for (std::size_t i = 0; i < n.t->arity(); ++i)
      xs.push_back(n.w.node("Unsqueeze", {n.same(i), n.w.ints({axis})}).output(0));
    auto& r = n.w.node("Concat", xs);
    GraphWriter::attr_int(r, "axis", axis);
    return r.output(0);
  }
};

// One entry of Shape, as a scalar.
template <>
struct OnnxExport<OpKind::Dim> {
  static std::string write(ExportNode& n) {
    const auto axis = axes_of(n.a, n.rank0).at(0);
    auto& s = n.w.node("Shape", {n.in(0)});
    GraphWriter::attr_int(s, "start", axis);
    GraphWriter::attr_int(s, "end", axis + 1);
    return n.w.node("Squeeze", {s.output(0), n.w.ints({0})}).output(0);
  }
};

// Indexing ops.

template <>
struct OnnxExport<OpKind::Index> {
  static std::string write(ExportNode& n) {
    auto& r = n.w.node("Gather", {n.in(0), n.w.as(n.t->operand(1), DType::I64)});
    GraphWriter::attr_int(r, "axis", 0);
    return r.output(0);
  }
};

// The omitted bounds as ONNX's clamped extremes.
template <>
struct OnnxExport<OpKind::Slice> {
  static std::string write(ExportNode& n) {
    GraphWriter& w = n.w;
    const std::int64_t step = n.a.get_or<std::int64_t>(AttrKey::Step, 1);
    const auto big = std::numeric_limits<std::int64_t>::max(),
               small = std::numeric_limits<std::int64_t>::min();
    const std::int64_t start = n.a.get_or<std::int64_t>(AttrKey::Start, step > 0 ? 0 : big);
    const std::int64_t stop = n.a.get_or<std::int64_t>(AttrKey::Stop, step > 0 ? big : small);
    return w
        .node("Slice", {n.in(0), w.ints({start}), w.ints({stop}),
                        w.ints({axes_of(n.a, n.rank0).at(0)}), w.ints({step})})
        .output(0);
  }
};

// Not written: a Slice and a Pad of zeros to a row count known at run time.
template <>
struct OnnxExport<OpKind::ResizeRows> : NotExportable {};

// Not written: ScatterND (reduction "add" for inc_*), with negative indices
// and slice bounds turned into ONNX's first.
template <>
struct OnnxExport<OpKind::SetIndex> : NotExportable {};

template <>
struct OnnxExport<OpKind::IncIndex> : NotExportable {};

template <>
struct OnnxExport<OpKind::SetSlice> : NotExportable {};

template <>
struct OnnxExport<OpKind::IncSlice> : NotExportable {};

// Creation ops: zeros and ones of a static shape as constants, the others
// expanded to their shape.

template <>
struct OnnxExport<OpKind::Zeros> {
  static std::string write(ExportNode& n) {
    const auto& shape = n.a.get<ops::IntList>(AttrKey::Shape);
    return n.w.constant(ops::Array::filled(n.out, ops::Dims(shape.begin(), shape.end()), false));
  }
};

template <>
struct OnnxExport<OpKind::Ones> {
  static std::string write(ExportNode& n) {
    const auto& shape = n.a.get<ops::IntList>(AttrKey::Shape);
    return n.w.constant(ops::Array::filled(n.out, ops::Dims(shape.begin(), shape.end()), true));
  }
};

template <>
struct OnnxExport<OpKind::Full> {
  static std::string write(ExportNode& n) {
    return n.w.node("Expand", {n.same(0), n.w.ints(n.a.get<ops::IntList>(AttrKey::Shape))})
        .output(0);
  }
};

template <>
struct OnnxExport<OpKind::ZerosLike> {
  static std::string write(ExportNode& n) {
    const std::string v = n.w.constant(ops::Array::scalar(n.out, false));
    return n.w.node("Expand", {v, n.w.node("Shape", {n.in(0)}).output(0)}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::OnesLike> {
  static std::string write(ExportNode& n) {
    const std::string v = n.w.constant(ops::Array::scalar(n.out, true));
    return n.w.node("Expand", {v, n.w.node("Shape", {n.in(0)}).output(0)}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::Arange> {
  static std::string write(ExportNode& n) {
    GraphWriter& w = n.w;
    return w
        .node("Range", {w.constant(ops::Array::scalar(n.out, 0)), w.as(n.t->operand(0), n.out),
                        w.constant(ops::Array::scalar(n.out, 1))})
        .output(0);
  }
};

// Control: a scan is a Loop (GraphWriter::loop), a get one of its outputs.

// A body is written only as a Loop's body, by its scan.
template <>
struct OnnxExport<OpKind::Fn> : NotExportable {};

template <>
struct OnnxExport<OpKind::Scan> {
  static std::string write(ExportNode& n) { return n.w.loop(n.t); }
};

// Calls read defs, which export_model refuses (ONNX functions are not
// written).
template <>
struct OnnxExport<OpKind::Call> : NotExportable {};

template <>
struct OnnxExport<OpKind::Get> {
  static std::string write(ExportNode& n) {
    return n.w.loop_output(n.t->operand(0),
                           static_cast<std::size_t>(n.a.get<std::int64_t>(AttrKey::Index)));
  }
};

// The optimizer expands grad; a graph still holding one has no value to write.
template <>
struct OnnxExport<OpKind::Grad> : NotExportable {};

}  // namespace eqsat::onnx
