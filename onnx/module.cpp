#include "module.hpp"

extern "C" const eqsat::onnx::ModuleFunctions* eqsat_onnx_module() {
  static const eqsat::onnx::ModuleFunctions functions{EQSAT_VERSION, &eqsat::onnx::import_model,
                                                      &eqsat::onnx::export_model};
  return &functions;
}
