// What a translator sees of one ONNX node: its operands as terms of ours,
// its attributes with ONNX's defaults, the model's opset, the values of
// operands known when the model is read (shapes, axes, pads...), and term
// builders that turn a type error into a refusal. A translator returns one
// term per ONNX output, or throws NotSupported (refuse) with the reason.
#pragma once

#include "proto.hpp"

#include "ops/term.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::onnx {

class Scope;

class NodeContext {
 public:
  NodeContext(const pb::NodeProto& node, int opset, std::vector<ops::TermRef> inputs, Scope& scope);

  const pb::NodeProto& node() const { return node_; }
  int opset() const { return opset_; }
  Scope& scope() const { return scope_; }

  // Operands: a missing optional input (absent or named "") is nullptr.
  std::size_t num_inputs() const { return inputs_.size(); }
  bool has_input(std::size_t i) const { return i < inputs_.size() && inputs_[i]; }
  // Operand i; refuses when it is missing.
  ops::TermRef input(std::size_t i) const;
  ops::TermRef input_or_null(std::size_t i) const { return has_input(i) ? inputs_[i] : nullptr; }
  const ops::TensorType& type(std::size_t i) const { return input(i)->tensor_type(); }
  int rank(std::size_t i) const { return type(i).rank(); }
  // Operand i's static shape; refuses when a dimension is unknown.
  const ops::Dims& static_dims(std::size_t i) const;
  // Operand i's value when the model alone fixes it (a constant, or a term
  // over constants only), else nullptr.
  const ops::Array* constant(std::size_t i) const;
  // Operand i's value as integers; refuses naming `what` when it is not
  // known when the model is read.
  std::vector<std::int64_t> const_ints(std::size_t i, std::string_view what) const;

  // Attributes, with the default ONNX gives when absent.
  bool has_attr(std::string_view name) const { return find_attr(name) != nullptr; }
  std::int64_t attr_int(std::string_view name, std::int64_t fallback) const;
  double attr_float(std::string_view name, double fallback) const;
  std::string attr_string(std::string_view name, std::string fallback) const;
  std::optional<std::vector<std::int64_t>> attr_ints(std::string_view name) const;
  std::vector<std::string> attr_strings(std::string_view name) const;
  std::vector<double> attr_floats(std::string_view name) const;
  const pb::TensorProto* attr_tensor(std::string_view name) const;
  // A graph attribute (a body); refuses when absent.
  const pb::GraphProto& attr_graph(std::string_view name) const;
  // Refuses every attribute not listed: an attribute eqsat would ignore
  // could change the result.
  void only_attrs(std::initializer_list<std::string_view> names) const;

  [[noreturn]] void refuse(const std::string& why) const;

  // The application of `kind`; a type error becomes a refusal naming it.
  ops::TermRef make(ops::OpKind kind, ops::Attrs attrs, std::vector<ops::TermRef> operands) const;
  ops::TermRef make(ops::OpKind kind, std::vector<ops::TermRef> operands) const {
    return make(kind, {}, std::move(operands));
  }
  // A scalar constant of `dtype`.
  static ops::TermRef scalar(ops::DType dtype, double value) {
    return ops::Term::scalar(dtype, value);
  }
  // A scalar of operand `like`'s dtype.
  static ops::TermRef scalar_like(ops::TermRef like, double value) {
    return ops::Term::scalar(like->tensor_type().dtype, value);
  }
  // The value of a term known when the model is read, or nullptr.
  const ops::Array* value_of(ops::TermRef t) const;

 private:
  const pb::AttributeProto* find_attr(std::string_view name) const;

  const pb::NodeProto& node_;
  int opset_;
  std::vector<ops::TermRef> inputs_;
  Scope& scope_;
};

// Normalizes ONNX axis `axis` (negative from the end) for rank `rank`;
// refuses through `ctx` when out of range.
int onnx_axis(const NodeContext& ctx, std::int64_t axis, int rank);

}  // namespace eqsat::onnx
