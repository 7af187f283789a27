#include "export.hpp"

#include "export_arrays.hpp"
#include "export_elementwise.hpp"

#include "ops/op_dispatch.hpp"

#include <fmt/format.h>

namespace eqsat::onnx {

std::string ExportNode::compare(const char* op) {
  const DType d =
      ops::promote(t->operand(0)->tensor_type().dtype, t->operand(1)->tensor_type().dtype);
  return w.node(op, {w.as(t->operand(0), d), w.as(t->operand(1), d)}).output(0);
}

// ReduceSum reads its axes as an input (opset 13), the others as an
// attribute (until opset 18).
std::string ExportNode::reduce(const char* op) {
  const bool axes_input = std::string_view(op) == "ReduceSum";
  const std::string x = same(0), axes = axes_input ? w.ints(axes_of(a, rank0)) : "";
  auto& n = axes_input ? w.node(op, {x, axes}) : w.node(op, {x});
  if (!axes_input) GraphWriter::attr_ints(n, "axes", axes_of(a, rank0));
  GraphWriter::attr_int(n, "keepdims", a.get_or<bool>(AttrKey::Keepdims, false));
  return n.output(0);
}

std::string ExportNode::softmax(const char* op) {
  auto& n = w.node(op, {same(0)});
  GraphWriter::attr_int(n, "axis", axes_of(a, rank0).at(0));
  return n.output(0);
}

std::string NotExportable::write(ExportNode& n) {
  throw ExportError(fmt::format("the op '{}' has no exact ONNX counterpart in eqsat's export",
                                ops::op_name(n.t->kind())));
}

std::string GraphWriter::translate(ops::TermRef t) {
  ExportNode n(*this, t);
  return ops::dispatch_op(t->kind(), [&]<OpKind K>(std::integral_constant<OpKind, K>) {
    return OnnxExport<K>::write(n);
  });
}

std::string export_model(const ops::Graph& g) {
  if (!g.defs.empty()) throw ExportError("a graph with defs (calls) has no ONNX export in eqsat");
  pb::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("eqsat");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  pb::GraphProto& graph = *model.mutable_graph();
  graph.set_name("eqsat");
  int counter = 0;
  GraphWriter w(graph, counter, {});
  for (auto in : g.inputs)
    set_type(graph.add_input(), in->attrs().get<std::string>(AttrKey::Name), in->tensor_type());
  for (const auto& out : g.outputs) {
    const std::string v = w.value(out.term);
    w.node("Identity", {v}, out.name);
    set_type(graph.add_output(), out.name, out.term->tensor_type());
  }
  return model.SerializeAsString();
}

}  // namespace eqsat::onnx
