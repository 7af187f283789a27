#include "arrays.hpp"

#include "errors.hpp"

#include "support/internal_error.hpp"

#include <fmt/format.h>

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

namespace {

// Refuses a cast of `given` to `cast` (already made) that changed a value:
// an integer that does not fit or is not exact in a float. A float beyond
// f32's range is refused before casting (range_error).
void check_value_kept(const py::module_& np, const py::array& given, const py::array& cast,
                      const std::string& name, ops::DType want) {
  const char kind = given.dtype().kind();
  if (kind != 'i' && kind != 'u') return;
  const py::object changed = np.attr("not_equal")(cast.attr("astype")(given.dtype()), given);
  const py::array where = np.attr("flatnonzero")(changed);
  if (where.size() == 0) return;
  const py::object value = given.attr("flat")[where.attr("__getitem__")(0)];
  throw Error(fmt::format("input '{}': the value {} of its {} array does not fit {}", name,
                          py::str(value).cast<std::string>(),
                          py::str(given.dtype()).cast<std::string>(), ops::dtype_name(want)));
}

// A finite float of `given` beyond f32's range (it would become inf), as
// an error naming the input, or nothing.
void check_f32_range(const py::module_& np, const py::array& given, const std::string& name) {
  const py::object beyond = np.attr("logical_and")(
      np.attr("isfinite")(given),
      np.attr("greater")(np.attr("abs")(given), np.attr("finfo")(np.attr("float32")).attr("max")));
  const py::array where = np.attr("flatnonzero")(beyond);
  if (where.size() == 0) return;
  const py::object value = given.attr("flat")[where.attr("__getitem__")(0)];
  throw Error(fmt::format(
      "input '{}': the value {} of its {} array does not fit f32 (beyond its "
      "range)",
      name, py::str(value).cast<std::string>(), py::str(given.dtype()).cast<std::string>()));
}

}  // namespace

ops::Array from_numpy(const py::handle& value, ops::DType want, const std::string& name) {
  py::module_ np = py::module_::import("numpy");
  py::array given = np.attr("asarray")(value);
  if (!np.attr("can_cast")(given.dtype(), numpy_dtype(want), "same_kind").cast<bool>())
    throw Error(fmt::format("input '{}': cannot cast an array of {} to {}", name,
                            py::str(given.dtype()).cast<std::string>(), ops::dtype_name(want)));
  const bool same = given.dtype().equal(numpy_dtype(want));
  if (!same && want == ops::DType::F32 && given.dtype().kind() == 'f')
    check_f32_range(np, given, name);
  // asarray, not ascontiguousarray: the latter turns a 0-d array into 1-d.
  py::array a = np.attr("asarray")(given, numpy_dtype(want), py::arg("order") = "C");
  if (!same) check_value_kept(np, given, a, name, want);
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
