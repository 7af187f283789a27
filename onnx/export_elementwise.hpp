// The export table's entries for leaves, elementwise ops and where
// (export_table.hpp): operands in the result's dtype, comparisons in their
// promoted dtype, logic on bool.
#pragma once

#include "export_table.hpp"

#include <cmath>

namespace eqsat::onnx {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;

// Leaves: an input by its name, a parameter by its body's name for it, a
// constant as a Constant node.

template <>
struct OnnxExport<OpKind::Input> {
  static std::string write(ExportNode& n) { return n.a.get<std::string>(AttrKey::Name); }
};

template <>
struct OnnxExport<OpKind::Nominal> {
  static std::string write(ExportNode& n) {
    return n.w.param(static_cast<std::size_t>(n.a.get<std::int64_t>(AttrKey::Slot)));
  }
};

template <>
struct OnnxExport<OpKind::Const> {
  static std::string write(ExportNode& n) { return n.w.constant(*n.t->const_value()); }
};

// Unary ops.

template <>
struct OnnxExport<OpKind::Neg> {
  static std::string write(ExportNode& n) { return n.unary("Neg"); }
};

template <>
struct OnnxExport<OpKind::Abs> {
  static std::string write(ExportNode& n) { return n.unary("Abs"); }
};

template <>
struct OnnxExport<OpKind::Sign> {
  static std::string write(ExportNode& n) { return n.unary("Sign"); }
};

template <>
struct OnnxExport<OpKind::Square> {
  static std::string write(ExportNode& n) {
    return n.w.node("Mul", {n.same(0), n.same(0)}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::Exp> {
  static std::string write(ExportNode& n) { return n.unary("Exp"); }
};

template <>
struct OnnxExport<OpKind::Expm1> {
  static std::string write(ExportNode& n) { return n.w.expm1(n.same(0)); }
};

template <>
struct OnnxExport<OpKind::Log> {
  static std::string write(ExportNode& n) { return n.unary("Log"); }
};

template <>
struct OnnxExport<OpKind::Log1p> {
  static std::string write(ExportNode& n) { return n.w.log1p(n.same(0)); }
};

template <>
struct OnnxExport<OpKind::Sqrt> {
  static std::string write(ExportNode& n) { return n.unary("Sqrt"); }
};

template <>
struct OnnxExport<OpKind::Reciprocal> {
  static std::string write(ExportNode& n) { return n.unary("Reciprocal"); }
};

template <>
struct OnnxExport<OpKind::Sin> {
  static std::string write(ExportNode& n) { return n.unary("Sin"); }
};

template <>
struct OnnxExport<OpKind::Cos> {
  static std::string write(ExportNode& n) { return n.unary("Cos"); }
};

template <>
struct OnnxExport<OpKind::Tanh> {
  static std::string write(ExportNode& n) { return n.unary("Tanh"); }
};

template <>
struct OnnxExport<OpKind::Erf> {
  static std::string write(ExportNode& n) { return n.unary("Erf"); }
};

template <>
struct OnnxExport<OpKind::Sigmoid> {
  static std::string write(ExportNode& n) { return n.unary("Sigmoid"); }
};

template <>
struct OnnxExport<OpKind::Softplus> {
  static std::string write(ExportNode& n) { return n.unary("Softplus"); }
};

// ONNX has no log1mexp, and log(1 - exp x) from its ops loses the accuracy
// near 0 the op exists for.
template <>
struct OnnxExport<OpKind::Log1mexp> : NotExportable {};

template <>
struct OnnxExport<OpKind::Floor> {
  static std::string write(ExportNode& n) { return n.unary("Floor"); }
};

template <>
struct OnnxExport<OpKind::Ceil> {
  static std::string write(ExportNode& n) { return n.unary("Ceil"); }
};

template <>
struct OnnxExport<OpKind::LogicalNot> {
  static std::string write(ExportNode& n) { return n.w.node("Not", {n.boolean(0)}).output(0); }
};

template <>
struct OnnxExport<OpKind::Cast> {
  static std::string write(ExportNode& n) { return n.w.cast(n.in(0), n.out); }
};

// Binary ops.

template <>
struct OnnxExport<OpKind::Add> {
  static std::string write(ExportNode& n) { return n.binary("Add"); }
};

template <>
struct OnnxExport<OpKind::Sub> {
  static std::string write(ExportNode& n) { return n.binary("Sub"); }
};

template <>
struct OnnxExport<OpKind::Mul> {
  static std::string write(ExportNode& n) { return n.binary("Mul"); }
};

template <>
struct OnnxExport<OpKind::Div> {
  static std::string write(ExportNode& n) { return n.binary("Div"); }
};

template <>
struct OnnxExport<OpKind::Pow> {
  static std::string write(ExportNode& n) { return n.binary("Pow"); }
};

template <>
struct OnnxExport<OpKind::Maximum> {
  static std::string write(ExportNode& n) { return n.binary("Max"); }
};

template <>
struct OnnxExport<OpKind::Minimum> {
  static std::string write(ExportNode& n) { return n.binary("Min"); }
};

// max + log1p(exp(-|a - b|)); equal operands (±inf too) give a + ln 2
template <>
struct OnnxExport<OpKind::Logaddexp> {
  static std::string write(ExportNode& n) {
    GraphWriter& w = n.w;
    const std::string x = n.same(0), y = n.same(1);
    const std::string d =
        w.node("Neg", {w.node("Abs", {w.node("Sub", {x, y}).output(0)}).output(0)}).output(0);
    const std::string r =
        w.node("Add", {w.node("Max", {x, y}).output(0), w.log1p(w.node("Exp", {d}).output(0))})
            .output(0);
    const std::string tie =
        w.node("Add", {x, w.constant(ops::Array::scalar(n.out, std::log(2.0)))}).output(0);
    return w.node("Where", {w.node("Equal", {x, y}).output(0), tie, r}).output(0);
  }
};

// ONNX has no hypot, and Sqrt(a² + b²) overflows and underflows where hypot
// does not.
template <>
struct OnnxExport<OpKind::Hypot> : NotExportable {};

template <>
struct OnnxExport<OpKind::Eq> {
  static std::string write(ExportNode& n) { return n.compare("Equal"); }
};

template <>
struct OnnxExport<OpKind::Ne> {
  static std::string write(ExportNode& n) {
    return n.w.node("Not", {n.compare("Equal")}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::Lt> {
  static std::string write(ExportNode& n) { return n.compare("Less"); }
};

template <>
struct OnnxExport<OpKind::Le> {
  static std::string write(ExportNode& n) { return n.compare("LessOrEqual"); }
};

template <>
struct OnnxExport<OpKind::Gt> {
  static std::string write(ExportNode& n) { return n.compare("Greater"); }
};

template <>
struct OnnxExport<OpKind::Ge> {
  static std::string write(ExportNode& n) { return n.compare("GreaterOrEqual"); }
};

template <>
struct OnnxExport<OpKind::LogicalAnd> {
  static std::string write(ExportNode& n) {
    return n.w.node("And", {n.boolean(0), n.boolean(1)}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::LogicalOr> {
  static std::string write(ExportNode& n) {
    return n.w.node("Or", {n.boolean(0), n.boolean(1)}).output(0);
  }
};

template <>
struct OnnxExport<OpKind::Where> {
  static std::string write(ExportNode& n) {
    return n.w.node("Where", {n.boolean(0), n.same(1), n.same(2)}).output(0);
  }
};

}  // namespace eqsat::onnx
