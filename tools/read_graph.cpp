#include "read_graph.hpp"

#include "backend/evaluate_closed.hpp"
#include "onnx_module.hpp"
#include "ops/graph_parser.hpp"

namespace eqsat::tools {

onnx::ImportOptions import_options() {
  onnx::ImportOptions options;
  options.evaluate = backend::evaluate_closed;
  return options;
}

ops::Graph read_graph(const std::string& path) {
  if (onnx::is_onnx_model(path)) return onnx_module().import_model(path, import_options()).graph;
  return ops::parse_graph_file(path);
}

}  // namespace eqsat::tools
