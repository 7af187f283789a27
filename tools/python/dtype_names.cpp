#include "dtype_names.hpp"

#include "arrays.hpp"
#include "errors.hpp"

#include <fmt/format.h>

namespace py = pybind11;

namespace eqsat::python {

ops::DType dtype_of(const py::handle& spelled, const std::string& what) {
  if (py::isinstance<py::str>(spelled))
    if (const auto d = ops::parse_dtype(spelled.cast<std::string>())) return *d;
  // Anything NumPy reads as a dtype, matched against the NumPy dtype of
  // each eqsat dtype (arrays.cpp), so the two stay one table.
  py::object np_dtype;
  try {
    np_dtype = py::module_::import("numpy").attr("dtype")(spelled);
  } catch (const py::error_already_set&) {
  }
  if (np_dtype)
    for (int k = 0; k < ops::kNumDTypes; ++k) {
      const auto d = static_cast<ops::DType>(k);
      if (np_dtype.equal(numpy_dtype(d))) return d;
    }
  throw Error(
      fmt::format("{}: unknown dtype {} (eqsat has bool, i32, i64, f32, f64, or their "
                  "NumPy names and types: 'float64', np.float32, ...)",
                  what, py::repr(spelled).cast<std::string>()));
}

}  // namespace eqsat::python
