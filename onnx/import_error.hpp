// The errors of reading an ONNX model: a node eqsat cannot run exactly
// (`MODEL.onnx: node 'NAME' (OPTYPE): not supported: WHY`) and a model that
// cannot be read at all (`MODEL.onnx: error: WHY`). Both are user errors
// (exit 1): the tools catch ImportError next to ops::DiagnosticError.
#pragma once

#include <stdexcept>
#include <string>

namespace eqsat::onnx {

class ImportError : public std::runtime_error {
 public:
  explicit ImportError(const std::string& message) : std::runtime_error(message) {}
};

// Thrown by a translator; the importer adds the model, node and op type.
class NotSupported : public std::runtime_error {
 public:
  explicit NotSupported(const std::string& why) : std::runtime_error(why) {}
};

}  // namespace eqsat::onnx
