// The ONNX module: import and export built as a shared object of their own
// (eqsat_onnx.so) that the eqsat program opens with dlopen on its first
// ONNX file (tools/onnx_module.hpp), so that a process reading only graph
// text never loads or relocates protobuf and ONNX's classes (about a
// millisecond of every start: bench/README.md, "Start-up"). The module
// takes ops/ from the program (which exports it), so terms built in the
// module are the program's hash-consed terms.
#pragma once

#include "export.hpp"
#include "import.hpp"

// The entry point's name, looked up with dlsym.
#define EQSAT_ONNX_MODULE_ENTRY "eqsat_onnx_module"

namespace eqsat::onnx {

// What the module offers. `version` is the eqsat version the module was
// built for: the program refuses a module of another version.
struct ModuleFunctions {
  const char* version;
  ImportResult (*import_model)(const std::string& path, const ImportOptions& options);
  std::string (*export_model)(const ops::Graph& g);
};

}  // namespace eqsat::onnx

extern "C" const eqsat::onnx::ModuleFunctions* eqsat_onnx_module();
