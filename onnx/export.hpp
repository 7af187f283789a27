// Writing a graph as an ONNX model (opset 17): each term becomes ONNX
// nodes computing the same values (casts make operands of one dtype where
// our promotion mixed them), every `scan` a Loop whose body reads its
// sequences with Gather at the iteration number, its states as
// loop-carried values and scan outputs, `:until` as the loop's condition,
// `:keep k` as a Slice of the last k steps.
// expm1 and log1p (and logaddexp through log1p), which ONNX lacks, are
// written by Kahan's formulas, accurate to a few ulps. What ONNX has no
// counterpart for (log1mexp, hypot, calls of a def, mit-sots, index
// updates) is refused with an ExportError naming the op.
//
//   onnx::write_model(optimized, "best.onnx");
#pragma once

#include "ops/graph.hpp"

#include <stdexcept>
#include <string>

namespace eqsat::onnx {

class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The serialized ModelProto of `g`.
std::string export_model(const ops::Graph& g);

}  // namespace eqsat::onnx
