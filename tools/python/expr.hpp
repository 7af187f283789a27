// The graph-building half of the Python module: an `Expr` wraps a
// hash-consed term, and `apply` builds an op application from Python
// operands and keyword attributes exactly as the graph parser does (weak
// numeric literals take the dtype of the arrays they meet; attributes are
// read by the parser's own attribute reader), so a graph built in Python is
// made of the same terms as the same graph written as text.
#pragma once

#include "ops/op.hpp"
#include "ops/term.hpp"

#include <pybind11/pybind11.h>

#include <string>

namespace eqsat::python {

struct Expr {
  ops::TermRef term;
};

// Applies `kind` to `args` (Exprs or Python numbers) with `kwargs` as
// attributes (`axis=1`, `axis=(0, 1)`, `keepdims=True`, `dtype="f32"`,
// `shape=(2, 3)`, ...). Throws eqsat.Error for an ill-typed application.
Expr apply(ops::OpKind kind, const pybind11::args& args, const pybind11::kwargs& kwargs);

// The type of dtype `dtype` (any spelling dtype_of reads) and shape `shape`
// (None for an unknown dimension); errors name `what`.
ops::TensorType tensor_type(const pybind11::handle& dtype, const pybind11::handle& shape,
                            const std::string& what);

// `(input NAME TYPE)` with a dtype (any spelling dtype_of reads) and a shape
// whose None entries are unknown dimensions.
Expr input(const std::string& name, const pybind11::handle& dtype, const pybind11::handle& shape);

}  // namespace eqsat::python
