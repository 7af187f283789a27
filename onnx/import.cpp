#include "import.hpp"

#include "import_error.hpp"
#include "scope.hpp"
#include "value_names.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>

namespace eqsat::onnx {

namespace {

pb::ModelProto read_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError(fmt::format("{}: error: cannot read the file", path));
  pb::ModelProto model;
  if (!model.ParseFromIstream(&in))
    throw ImportError(
        fmt::format("{}: error: not an ONNX model (the protobuf does not parse)", path));
  return model;
}

// The opset of ONNX's default domain the model imports, or -1.
int default_opset(const pb::ModelProto& model) {
  int opset = -1;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  return opset;
}

}  // namespace

ImportResult import_model(const std::string& path, const ImportOptions& options) {
  const pb::ModelProto model = read_model(path);
  ModelContext context{path, default_opset(model), &options, {}, {}, {}};
  const pb::GraphProto& g = model.graph();
  if (model.functions_size() > 0)
    throw ImportError(fmt::format("{}: error: not supported: model-local functions", path));
  Scope scope(context);
  ValueNames names;
  ImportResult result;
  std::set<std::string> initialized;
  for (const auto& init : g.initializer()) initialized.insert(init.name());
  for (const auto& in : g.input()) {
    if (initialized.count(in.name())) continue;  // IR < 4 lists initializers as inputs
    ops::TensorType type;
    try {
      type = tensor_type_of(in.type(), fmt::format("input '{}'", in.name()));
    } catch (const NotSupported& e) {
      throw ImportError(
          fmt::format("{}: input '{}': not supported: {}", path, in.name(), e.what()));
    }
    ops::TermRef t = ops::Term::input(names.make(in.name()), type);
    result.graph.inputs.push_back(t);
    scope.define(in.name(), t);
  }
  try {
    scope.import_nodes(g);
  } catch (const NotSupported& e) {  // an initializer
    throw ImportError(fmt::format("{}: initializer: not supported: {}", path, e.what()));
  }
  for (const auto& out : g.output()) {
    ops::TermRef t = scope.lookup(out.name());
    if (!t)
      throw ImportError(
          fmt::format("{}: error: output '{}' is not computed by any node", path, out.name()));
    result.graph.outputs.push_back({names.make(out.name()), t});
  }
  result.graph.locations = std::move(context.locations);
  result.side_files = std::move(context.side_files);
  return result;
}

}  // namespace eqsat::onnx
