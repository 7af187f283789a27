#include "arrays.hpp"

#include "support/internal_error.hpp"

#include <cstring>
#include <memory>

namespace py = pybind11;

namespace eqsat::python {

py::dtype numpy_dtype(ops::DType d) {
  switch (d) {
    case ops::DType::Bool:
      return py::dtype::of<bool>();
    case ops::DType::I32:
      return py::dtype::of<std::int32_t>();
    case ops::DType::I64:
      return py::dtype::of<std::int64_t>();
    case ops::DType::F32:
      return py::dtype::of<float>();
    case ops::DType::F64:
      break;
  }
  EQSAT_ASSERT(d == ops::DType::F64) << "numpy_dtype: unknown dtype " << static_cast<int>(d);
  return py::dtype::of<double>();
}

ops::Array from_numpy(const py::handle& value, ops::DType want) {
  py::module_ np = py::module_::import("numpy");
  py::array given = np.attr("asarray")(value);
  if (!np.attr("can_cast")(given.dtype(), numpy_dtype(want), "same_kind").cast<bool>())
    throw py::type_error("cannot cast an array of " + py::str(given.dtype()).cast<std::string>() +
                         " to " + std::string(ops::dtype_name(want)));
  // asarray, not ascontiguousarray: the latter turns a 0-d array into 1-d.
  py::array a = np.attr("asarray")(given, numpy_dtype(want), py::arg("order") = "C");
  ops::Dims shape(a.shape(), a.shape() + a.ndim());
  ops::Array out(want, shape);
  if (out.nbytes() > 0) std::memcpy(out.bytes(), a.data(), out.nbytes());
  return out;
}

py::array to_numpy(const ops::Array& a) {
  // The capsule owns a copy of the Array handle, so the shared buffer lives
  // as long as the NumPy array does.
  auto* owner = new ops::Array(a);
  py::capsule keep(owner, [](void* p) { delete static_cast<ops::Array*>(p); });
  std::vector<py::ssize_t> shape(a.shape().begin(), a.shape().end());
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t step = static_cast<py::ssize_t>(ops::dtype_size(a.dtype()));
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i];
  }
  return py::array(numpy_dtype(a.dtype()), shape, strides, owner->bytes(), keep);
}

}  // namespace eqsat::python
