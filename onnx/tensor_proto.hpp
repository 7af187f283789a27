// ONNX tensors and our arrays: TensorProto (initializers, Constant values,
// the .pb files of ONNX's tests) read into an ops::Array, an Array written
// back as a TensorProto, and ONNX's element types mapped to our dtypes.
// Only the five dtypes of the language exist here: any other element type
// (uint8, float16, string, ...) is refused by name.
#pragma once

#include "proto.hpp"

#include "ops/array.hpp"

#include <optional>
#include <string>

namespace eqsat::onnx {

// Our dtype for ONNX element type `elem_type` (TensorProto::DataType), or
// nullopt when the language has none.
std::optional<ops::DType> dtype_of_elem(int elem_type);
// ONNX's element type for `d`.
int elem_of_dtype(ops::DType d);
// ONNX's name of an element type (`uint8`, `float16`...), for refusals.
std::string elem_type_name(int elem_type);

// The value of `t`; throws NotSupported for another element type, data kept
// in an external file or a size that does not match the dims.
ops::Array read_tensor(const pb::TensorProto& t);
// Reads a serialized TensorProto file (ONNX's test data `input_0.pb`);
// throws ImportError naming the file when it cannot be read or parsed.
ops::Array read_tensor_file(const std::string& path);

// `a` as a TensorProto named `name` (raw little-endian data).
pb::TensorProto write_tensor(const ops::Array& a, const std::string& name);

}  // namespace eqsat::onnx
