// A value written on the command line, `--input x=0.5` or
// `--input v=[[1,2],[3,4]]`, so that trying a graph at a few points needs
// no .npy files. NumPy's nesting of brackets gives the shape; the graph's
// declaration gives the dtype.
#pragma once

#include "ops/array.hpp"

#include <optional>
#include <string_view>

namespace eqsat::tools {

// Whether `text` is written as a value rather than a file name: it starts
// with `[`, a digit, a sign, or `.` and a digit, or is one of `inf nan true
// false`. A file named like a number is given as `./0.5`.
bool looks_like_value(std::string_view text);

// The array `text` writes, of `dtype`: numbers (`inf`, `-inf`, `nan` for
// floats; `true`/`false` or 0/1 for bool) nested in brackets of equal
// lengths. What does not fit `dtype` exactly (1.5 or 2^40 for i32, 2 for
// bool, a float beyond the dtype's range) is refused: throws
// ops::DiagnosticError located at `--input NAME`.
ops::Array parse_input_value(std::string_view name, std::string_view text, ops::DType dtype);

}  // namespace eqsat::tools
