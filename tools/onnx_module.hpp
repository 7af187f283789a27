// The ONNX importer and exporter, from the module the program opens on
// first use (onnx/module.hpp): a process that reads no ONNX file never
// loads protobuf.
#pragma once

#include "onnx/module.hpp"

#include <stdexcept>

namespace eqsat::tools {

// The module is missing or of another version: an incomplete installation,
// which every command reports as an internal error (exit 3), never as a
// fault of the user's file.
class OnnxModuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The module's functions, opened on the first call: `eqsat_onnx.so` beside
// the program (the build tree), else in EQSAT_ONNX_MODULE_DIR relative to
// the program's prefix (an installed tree). Throws OnnxModuleError naming
// each place tried and why it failed.
const onnx::ModuleFunctions& onnx_module();

}  // namespace eqsat::tools
