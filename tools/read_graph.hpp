// The one place the commands read a graph: a `.eg` file with the graph
// parser, or an ONNX model (onnx::is_onnx_model: the `.onnx` suffix or a
// ModelProto's first byte) with the ONNX importer, the executor computing
// the shape operands the model derives from constants.
#pragma once

#include "onnx/import.hpp"
#include "ops/graph.hpp"

#include <string>

namespace eqsat::tools {

ops::Graph read_graph(const std::string& path);

// The importer's options with the executor as its evaluator.
onnx::ImportOptions import_options();

}  // namespace eqsat::tools
