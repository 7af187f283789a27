// The value of a term that uses no graph input and no body parameter (a
// shape computed from constants), by compiling it as a one-output graph
// and running it: what ONNX's importer needs to read shape, axes and pads
// operands that a model computes from constants (onnx/import.hpp).
#pragma once

#include "ops/array.hpp"
#include "ops/term.hpp"

#include <optional>

namespace eqsat::backend {

// nullopt when `t` uses an input or a parameter, is a tuple, or fails to
// run (an index out of range...).
std::optional<ops::Array> evaluate_closed(ops::TermRef t);

}  // namespace eqsat::backend
