// Reading an ONNX model as a graph of ours (docs/onnx.md): the model's
// inputs (initializers excluded) become inputs, its outputs outputs, under
// the model's names made file-safe (value_names.hpp); initializers and
// Constant nodes become constants; each node is translated by the op table
// (op_table.hpp) into our ops, exactly, or refused:
//
//   ops::Graph g = onnx::import_model("model.onnx", {});
//
// A refusal is an ImportError reading
// `MODEL.onnx: node 'NAME' (OPTYPE): not supported: WHY` (a node without a
// name is named after its first named output).
#pragma once

#include "model_file.hpp"
#include "ops/graph.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::onnx {

// The value of a term that uses no input (a shape computed from
// constants); nullopt when it cannot be computed. The importer needs the
// values of shape, axes and pads operands; ops/ has no evaluator, so the
// caller passes one (backend::evaluate_closed).
using Evaluator = std::function<std::optional<ops::Array>(ops::TermRef)>;

struct ImportOptions {
  Evaluator evaluate;
  // When set, a constant of more than `inline_limit` elements gets the
  // path `side_dir/NAME.npy` (relative to the graph file), so that the
  // printer writes `(load ...)`; the caller writes the files listed in
  // ImportResult::side_files.
  std::optional<std::string> side_dir;
  std::int64_t inline_limit = 16;
};

struct SideFile {
  std::string path;  // as written in the graph, relative to its folder
  ops::Array value;
};

struct ImportResult {
  ops::Graph graph;
  std::vector<SideFile> side_files;
};

ImportResult import_model(const std::string& path, const ImportOptions& options);

}  // namespace eqsat::onnx
