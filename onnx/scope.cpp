#include "scope.hpp"

#include "import_error.hpp"
#include "op_table.hpp"
#include "tensor_proto.hpp"

#include "ops/type_error.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace eqsat::onnx {

ops::TensorType tensor_type_of(const pb::TypeProto& t, const std::string& what) {
  if (!t.has_tensor_type())
    throw NotSupported(
        fmt::format("{} is not a tensor (sequences, maps and optionals are not supported)", what));
  const auto& tt = t.tensor_type();
  const auto dtype = dtype_of_elem(tt.elem_type());
  if (!dtype)
    throw NotSupported(fmt::format("{} has dtype {} (eqsat has bool, int32, int64, float, double)",
                                   what, elem_type_name(tt.elem_type())));
  ops::TensorType type{*dtype, {}};
  if (!tt.has_shape()) throw NotSupported(fmt::format("{} has no rank", what));
  for (const auto& d : tt.shape().dim())
    type.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : ops::kUnknownDim);
  return type;
}

std::string node_label(const pb::NodeProto& node) {
  if (!node.name().empty()) return node.name();
  for (const auto& out : node.output())
    if (!out.empty()) return out;
  return {};
}

ops::TermRef Scope::lookup(const std::string& name) {
  if (auto it = names_.find(name); it != names_.end()) return it->second;
  if (!parent_) return nullptr;
  ops::TermRef outer = parent_->lookup(name);
  if (inline_) return outer;
  if (!outer || (!outer->uses_input() && outer->free_nominals().empty())) return outer;
  if (auto it = captured_.find(outer); it != captured_.end()) return it->second;
  const auto slot = first_capture_slot_ + static_cast<std::int64_t>(captures_.size());
  ops::TermRef nominal = ops::Term::nominal(slot, outer->tensor_type());
  captures_.push_back(outer);
  captured_[outer] = nominal;
  return nominal;
}

std::vector<ops::TensorType> Scope::capture_types() const {
  std::vector<ops::TensorType> types;
  for (auto t : captures_) types.push_back(t->tensor_type());
  return types;
}

const ops::Array* Scope::value_of(ops::TermRef t) {
  if (t->is_tuple()) return nullptr;
  if (const ops::Array* a = t->const_value()) return a;
  if (t->uses_input() || !t->free_nominals().empty() || !model_.options->evaluate) return nullptr;
  auto it = model_.values.find(t);
  if (it == model_.values.end()) it = model_.values.emplace(t, model_.options->evaluate(t)).first;
  return it->second ? &*it->second : nullptr;
}

void Scope::import_nodes(const pb::GraphProto& g) {
  for (const auto& init : g.initializer()) {
    ops::Array value = read_tensor(init);
    ops::TermRef t = ops::Term::constant(value);
    const ModelContext& m = model_;
    if (!is_body() && m.options->side_dir && value.size() > m.options->inline_limit) {
      const std::string file =
          *m.options->side_dir + "/" + std::to_string(model_.side_files.size()) + ".npy";
      t = ops::Term::make(ops::OpKind::Const,
                          {{ops::AttrKey::Value, value}, {ops::AttrKey::Path, file}}, {});
      model_.side_files.push_back({file, value});
    }
    define(init.name(), t);
  }
  for (const auto& node : g.node()) import_node(node);
}

void Scope::import_node(const pb::NodeProto& node) {
  auto refuse = [&](const std::string& why) {
    return ImportError(fmt::format("{}: node '{}' ({}): not supported: {}", model_.path,
                                   node_label(node), node.op_type(), why));
  };
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    throw refuse(
        fmt::format("the operator domain '{}' (eqsat reads ONNX's default domain)", node.domain()));
  if (model_.opset < kMinOpset || model_.opset > kMaxOpset)
    throw refuse(
        model_.opset < 0
            ? std::string("the model imports no opset of ONNX's default domain")
            : fmt::format("opset {} (eqsat reads opsets {} to {} of ONNX's default domain)",
                          model_.opset, kMinOpset, kMaxOpset));
  const OnnxOp* op = find_onnx_op(node.op_type());
  if (!op) throw refuse("eqsat has no translation of this op");
  std::vector<ops::TermRef> inputs;
  for (const auto& name : node.input()) {
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    ops::TermRef t = lookup(name);
    if (!t) throw refuse(fmt::format("its input '{}' is not defined before it", name));
    inputs.push_back(t);
  }
  std::vector<ops::TermRef> outputs;
  try {
    NodeContext ctx(node, model_.opset, std::move(inputs), *this);
    outputs = op->translate(ctx);
  } catch (const NotSupported& e) {
    throw refuse(e.what());
  } catch (const ops::TypeError& e) {
    throw refuse(e.what());
  } catch (const std::out_of_range&) {  // an operand or attribute of the wrong rank or length
    throw refuse("a malformed node (an operand or attribute of the wrong rank or length)");
  }
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    const auto k = static_cast<std::size_t>(i);
    if (k >= outputs.size() || !outputs[k])
      throw refuse(fmt::format("its output {} ('{}') is not computed by eqsat", i, node.output(i)));
    define(node.output(i), outputs[k]);
  }
  locate(node, outputs);
}

void Scope::locate(const pb::NodeProto& node, const std::vector<ops::TermRef>& outputs) {
  const ops::SourceLocation where{model_.path, 0, 0,
                                  fmt::format("'{}' ({})", node_label(node), node.op_type())};
  std::vector<ops::TermRef> todo;
  for (ops::TermRef t : outputs)
    if (t) todo.push_back(t);
  while (!todo.empty()) {
    ops::TermRef t = todo.back();
    todo.pop_back();
    if (t->kind() == ops::OpKind::Input || !model_.locations.emplace(t, where).second) continue;
    for (ops::TermRef operand : t->operands()) todo.push_back(operand);
  }
}

}  // namespace eqsat::onnx
