// Conversions between NumPy arrays and eqsat arrays for the Python module.
// Inputs are copied into an aligned eqsat buffer (the executor's kernels
// need 64-byte alignment); outputs are handed to NumPy without a copy, the
// array object keeping the eqsat buffer alive.
#pragma once

#include "ops/array.hpp"

#include <pybind11/numpy.h>

#include <string>

namespace eqsat::python {

// `value` as an eqsat array of dtype `want` (bool, int32, int64, float32,
// float64) for the input `name`. NumPy casts when the dtypes differ, within
// a kind or to a wider one, and only where no value changes (an integer
// must fit, a float must stay finite; rounding to float32 is allowed):
// otherwise eqsat.Error names the input and the value.
ops::Array from_numpy(const pybind11::handle& value, ops::DType want, const std::string& name);
// A NumPy array viewing `a`'s buffer.
pybind11::array to_numpy(const ops::Array& a);
// The NumPy dtype of `d`.
pybind11::dtype numpy_dtype(ops::DType d);

}  // namespace eqsat::python
