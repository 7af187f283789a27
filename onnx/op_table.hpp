// The op translation table: one entry per ONNX op of the default domain
// that eqsat runs exactly, its translator handling the op's attributes,
// defaults and opset differences. Entries live with their family
// (ops_elementwise.cpp, ops_reduce.cpp, ops_shape.cpp, ops_index.cpp,
// ops_nn.cpp, ops_control.cpp, ops_recurrent.cpp); an op type found in
// none of them is refused.
#pragma once

#include "node_context.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace eqsat::onnx {

// Translates one node: one term per ONNX output the node declares
// (nullptr for an optional output eqsat does not compute), or throws
// NotSupported.
using Translator = std::vector<ops::TermRef> (*)(NodeContext& ctx);

struct OnnxOp {
  std::string_view op_type;
  Translator translate;
};

// The entry of `op_type`, or nullptr.
const OnnxOp* find_onnx_op(std::string_view op_type);
// Every entry, sorted by op type (for docs/onnx.md).
std::vector<const OnnxOp*> all_onnx_ops();

// The families' tables.
std::span<const OnnxOp> elementwise_ops();
std::span<const OnnxOp> reduce_ops();
std::span<const OnnxOp> shape_ops();
std::span<const OnnxOp> index_ops();
std::span<const OnnxOp> nn_ops();
std::span<const OnnxOp> control_ops();
std::span<const OnnxOp> recurrent_ops();

}  // namespace eqsat::onnx
