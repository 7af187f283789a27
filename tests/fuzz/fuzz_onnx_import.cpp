// Fuzz target: the ONNX importer. Any bytes are a model read as a graph or
// refused with a message naming the file (an ImportError, or a located
// DiagnosticError for a model whose graph does not type-check); never a
// crash or another exception. An accepted graph prints.
#include "backend/evaluate_closed.hpp"
#include "onnx/import.hpp"
#include "onnx/import_error.hpp"
#include "ops/diagnostic.hpp"
#include "ops/graph_printer.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eqsat;
  // The importer takes a path: one scratch file per fuzzing process.
  static const std::string path = "/tmp/eqsat-fuzz-onnx-" + std::to_string(::getpid()) + ".onnx";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  onnx::ImportOptions options;
  options.evaluate = backend::evaluate_closed;
  std::string message;
  try {
    const onnx::ImportResult result = onnx::import_model(path, options);
    for (const auto& output : result.graph.outputs)
      if (output.term == nullptr) __builtin_trap();
    (void)ops::print_graph(result.graph);
    return 0;
  } catch (const onnx::ImportError& e) {
    message = e.what();
  } catch (const ops::DiagnosticError& e) {
    message = e.what();
  }
  // A refusal says which file, and why.
  if (!std::string_view(message).starts_with(path + ":") || message.size() <= path.size() + 2)
    __builtin_trap();
  return 0;
}
