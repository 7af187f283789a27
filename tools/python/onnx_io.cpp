#include "onnx_io.hpp"

#include "errors.hpp"

#include "backend/evaluate_closed.hpp"
#include "onnx/export.hpp"
#include "onnx/import.hpp"
#include "onnx/import_error.hpp"
#include "ops/graph.hpp"
#include "ops/output_file.hpp"

namespace py = pybind11;

namespace eqsat::python {

void bind_onnx(py::module_& m) {
  auto graph = py::reinterpret_borrow<py::class_<ops::Graph>>(m.attr("Graph"));
  graph.def_static(
      "from_onnx",
      [](const std::string& path) {
        onnx::ImportOptions options;
        options.evaluate = backend::evaluate_closed;
        try {
          return onnx::import_model(path, options).graph;
        } catch (const onnx::ImportError& e) {
          throw Error(e.what());
        }
      },
      py::arg("path"),
      "A graph from an ONNX model; raises eqsat.Error naming the node, its op type and why "
      "when eqsat cannot run it exactly.");
  graph.def(
      "to_onnx",
      [](const ops::Graph& g, const std::string& path) {
        try {
          ops::write_file_atomically(path, {onnx::export_model(g)});
        } catch (const onnx::ExportError& e) {
          throw Error(path + ": error: " + e.what());
        }
      },
      py::arg("path"), "Writes the graph as an ONNX model (opset 17).");
}

}  // namespace eqsat::python
