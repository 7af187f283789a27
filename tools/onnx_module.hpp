// The ONNX importer and exporter, from the module the program opens on
// first use (onnx/module.hpp): a process that reads no ONNX file never
// loads protobuf.
#pragma once

#include "onnx/module.hpp"

namespace eqsat::tools {

// The module's functions, opened on the first call: `eqsat_onnx.so` beside
// the program (the build tree), else in EQSAT_ONNX_MODULE_DIR relative to
// the program's prefix (an installed tree). Throws std::runtime_error
// naming each place tried and why it failed, or a module of another
// version: an incomplete installation, reported as an internal error.
const onnx::ModuleFunctions& onnx_module();

}  // namespace eqsat::tools
