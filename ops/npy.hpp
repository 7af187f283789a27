// NumPy's `.npy` files: reading and writing Arrays. Format versions 1.0,
// 2.0 and 3.0, little-endian, C order, the five dtypes of the language
// (`|b1 <i4 <i8 <f4 <f8`). Anything else — Fortran order, another dtype, a
// big-endian file, a truncated or malformed file — is a DiagnosticError
// naming the file (`FILE: error: MESSAGE`).
#pragma once

#include "array.hpp"
#include "type.hpp"

#include <string>

namespace eqsat::ops {

// The dtype and shape stored in a file's header, without reading the data.
TensorType read_npy_type(const std::string& path);

// The whole array.
Array read_npy(const std::string& path);

// Writes `a` as a version 1.0 file (2.0 when the header needs it).
void write_npy(const std::string& path, const Array& a);

}  // namespace eqsat::ops
