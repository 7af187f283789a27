// ONNX models in the Python module: Graph.from_onnx(path) and
// graph.to_onnx(path) (docs/python.md, docs/onnx.md), added to the Graph
// class module.cpp binds.
#pragma once

#include <pybind11/pybind11.h>

namespace eqsat::python {

void bind_onnx(pybind11::module_& m);

}  // namespace eqsat::python
