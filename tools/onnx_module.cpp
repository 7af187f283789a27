#include "onnx_module.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace eqsat::tools {

namespace {

// The places the module may be, in order: beside the program, then the
// installed module directory under the program's prefix.
std::vector<std::filesystem::path> module_candidates() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path dir = ec ? std::filesystem::path(".") : self.parent_path();
  return {dir / "eqsat_onnx.so", dir / ".." / EQSAT_ONNX_MODULE_DIR / "eqsat_onnx.so"};
}

const onnx::ModuleFunctions& open_module() {
  std::string reasons;
  for (const std::filesystem::path& path : module_candidates()) {
    // RTLD_NOW: a symbol the program does not export fails here, not in
    // the middle of an import.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      reasons += std::string("\n  ") + dlerror();
      continue;
    }
    using Entry = const onnx::ModuleFunctions* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, EQSAT_ONNX_MODULE_ENTRY));
    const onnx::ModuleFunctions* functions = entry != nullptr ? entry() : nullptr;
    if (functions == nullptr) {
      reasons += "\n  " + path.string() + ": no " EQSAT_ONNX_MODULE_ENTRY;
    } else if (std::strcmp(functions->version, EQSAT_VERSION) != 0) {
      reasons += "\n  " + path.string() + ": built for eqsat " + functions->version;
    } else {
      return *functions;  // kept open for the rest of the process
    }
    dlclose(handle);
  }
  throw OnnxModuleError("cannot open the ONNX module (eqsat " EQSAT_VERSION "):" + reasons);
}

}  // namespace

const onnx::ModuleFunctions& onnx_module() {
  static const onnx::ModuleFunctions& functions = open_module();
  return functions;
}

}  // namespace eqsat::tools
