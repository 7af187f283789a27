#include "tensor_proto.hpp"

#include "import_error.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace eqsat::onnx {

std::optional<ops::DType> dtype_of_elem(int elem_type) {
  switch (elem_type) {
    case pb::TensorProto::FLOAT:
      return ops::DType::F32;
    case pb::TensorProto::DOUBLE:
      return ops::DType::F64;
    case pb::TensorProto::INT32:
      return ops::DType::I32;
    case pb::TensorProto::INT64:
      return ops::DType::I64;
    case pb::TensorProto::BOOL:
      return ops::DType::Bool;
    default:
      return std::nullopt;
  }
}

int elem_of_dtype(ops::DType d) {
  switch (d) {
    case ops::DType::Bool:
      return pb::TensorProto::BOOL;
    case ops::DType::I32:
      return pb::TensorProto::INT32;
    case ops::DType::I64:
      return pb::TensorProto::INT64;
    case ops::DType::F32:
      return pb::TensorProto::FLOAT;
    case ops::DType::F64:
      break;
  }
  return pb::TensorProto::DOUBLE;
}

std::string elem_type_name(int elem_type) {
  if (pb::TensorProto::DataType_IsValid(elem_type)) {
    std::string name =
        pb::TensorProto::DataType_Name(static_cast<pb::TensorProto::DataType>(elem_type));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
  }
  return fmt::format("element type {}", elem_type);
}

namespace {

// Copies the typed repeated field `values` into `a`, converting each element.
template <class Field>
void copy_field(const Field& values, ops::Array& a) {
  ops::visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = a.data<T>();
    for (int i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values.Get(i));
  });
}

}  // namespace

ops::Array read_tensor(const pb::TensorProto& t) {
  const auto dtype = dtype_of_elem(t.data_type());
  if (!dtype)
    throw NotSupported(fmt::format("the dtype {} (eqsat has bool, int32, int64, float, double)",
                                   elem_type_name(t.data_type())));
  if (t.data_location() == pb::TensorProto::EXTERNAL)
    throw NotSupported(fmt::format("tensor '{}' keeps its data in an external file", t.name()));
  ops::Dims dims;
  for (auto d : t.dims()) {
    if (d < 0) throw NotSupported(fmt::format("tensor '{}' has a negative dimension", t.name()));
    dims.push_back(d);
  }
  const auto count = ops::checked_num_elements(dims);
  if (!count || !ops::checked_num_bytes({*dtype, dims}))
    throw NotSupported(fmt::format("tensor '{}' is too large", t.name()));
  ops::Array a(*dtype, dims);
  const auto n = static_cast<std::size_t>(*count);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != a.nbytes())
      throw NotSupported(fmt::format("tensor '{}' holds {} bytes of data for {} elements", t.name(),
                                     t.raw_data().size(), n));
    if (*dtype == ops::DType::Bool) {  // any nonzero byte is true; a bool holds 0 or 1 only
      for (std::size_t i = 0; i < n; ++i) a.data<bool>()[i] = t.raw_data()[i] != 0;
    } else {
      std::memcpy(a.bytes(), t.raw_data().data(), a.nbytes());
    }
    return a;
  }
  auto check = [&](int size) {
    if (static_cast<std::size_t>(size) != n)
      throw NotSupported(
          fmt::format("tensor '{}' holds {} values for {} elements", t.name(), size, n));
  };
  switch (*dtype) {
    case ops::DType::F32:
      check(t.float_data_size());
      copy_field(t.float_data(), a);
      break;
    case ops::DType::F64:
      check(t.double_data_size());
      copy_field(t.double_data(), a);
      break;
    case ops::DType::I64:
      check(t.int64_data_size());
      copy_field(t.int64_data(), a);
      break;
    case ops::DType::I32:
      check(t.int32_data_size());
      copy_field(t.int32_data(), a);
      break;
    case ops::DType::Bool:
      check(t.int32_data_size());
      for (std::size_t i = 0; i < n; ++i) a.data<bool>()[i] = t.int32_data(static_cast<int>(i)) != 0;
      break;
  }
  return a;
}

ops::Array read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError(fmt::format("{}: error: cannot read the file", path));
  pb::TensorProto t;
  if (!t.ParseFromIstream(&in))
    throw ImportError(fmt::format("{}: error: not a serialized ONNX TensorProto", path));
  try {
    return read_tensor(t);
  } catch (const NotSupported& e) {
    throw ImportError(fmt::format("{}: not supported: {}", path, e.what()));
  }
}

pb::TensorProto write_tensor(const ops::Array& a, const std::string& name) {
  pb::TensorProto t;
  t.set_name(name);
  t.set_data_type(elem_of_dtype(a.dtype()));
  for (auto d : a.shape()) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(a.bytes()), a.nbytes()));
  return t;
}

}  // namespace eqsat::onnx
