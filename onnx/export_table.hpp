// The export as a table: one entry per op of the catalogue, written as a
// specialization `template <> struct OnnxExport<OpKind::Exp>` whose
// `static std::string write(ExportNode& n)` adds the ONNX nodes computing
// the op's value and returns the name of that value. export.cpp reads the
// table through ops::dispatch_op, which names every op: an op without an
// entry does not compile. An op ONNX has no exact counterpart for has an
// entry too, deriving from NotExportable, with the reason above it. The
// entries are in export_elementwise.hpp (leaves, unary and binary ops,
// where) and export_arrays.hpp (the other groups).
#pragma once

#include "graph_writer.hpp"

#include <string>

namespace eqsat::onnx {

template <ops::OpKind K>
struct OnnxExport;

// One term being written: its attributes, its result dtype (f64 for a
// tuple), the rank of its operand 0, and the forms most entries take.
struct ExportNode {
  ExportNode(GraphWriter& writer, ops::TermRef term)
      : w(writer),
        t(term),
        a(term->attrs()),
        out(term->is_tuple() ? ops::DType::F64 : term->tensor_type().dtype),
        rank0(term->arity() > 0 && !term->operand(0)->is_tuple()
                  ? term->operand(0)->tensor_type().rank()
                  : 0) {}

  // Operand i's value, as it is / in the result's dtype.
  std::string in(std::size_t i) { return w.value(t->operand(i)); }
  std::string same(std::size_t i) { return w.as(t->operand(i), out); }
  // Operand i's value as bool.
  std::string boolean(std::size_t i) { return w.as(t->operand(i), ops::DType::Bool); }
  // One ONNX node over the operands in the result's dtype.
  std::string unary(const char* op) { return w.node(op, {same(0)}).output(0); }
  std::string binary(const char* op) { return w.node(op, {same(0), same(1)}).output(0); }
  // A comparison, its operands in their promoted dtype.
  std::string compare(const char* op);
  // A Reduce* node over the op's axes, with its keepdims.
  std::string reduce(const char* op);
  // Softmax or LogSoftmax along the op's axis.
  std::string softmax(const char* op);

  GraphWriter& w;
  ops::TermRef t;
  const ops::Attrs& a;
  const ops::DType out;
  const int rank0;
};

// The entry of an op with no exact ONNX counterpart: an ExportError naming it.
struct NotExportable {
  [[noreturn]] static std::string write(ExportNode& n);
};

}  // namespace eqsat::onnx
