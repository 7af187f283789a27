// The dtypes a Python user may write: eqsat's names (`"f64"`), NumPy's
// names (`"float64"`, `"double"`, `"int32"`, `"bool"`) and NumPy's dtype and
// scalar-type objects (`np.float32`, `np.dtype("int64")`).
#pragma once

#include "ops/dtype.hpp"

#include <pybind11/pybind11.h>

namespace eqsat::python {

// The eqsat dtype `spelled` names; throws eqsat.Error naming `what` (e.g.
// "input x") and the dtypes there are when it names none.
ops::DType dtype_of(const pybind11::handle& spelled, const std::string& what);

}  // namespace eqsat::python
