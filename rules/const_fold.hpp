// Constant folding of small arrays while optimizing: elementwise ops (with
// NumPy broadcasting) and the shape ops that only reorder elements
// (reshape, expand_dims, squeeze, transpose, broadcast_to), evaluated
// element by element with scalar_eval.hpp, as the executor computes them;
// reductions, softmax, dot, indexing, flip, concat and stack by running the
// executor's kernel on the constants (an index out of range is not folded).
#pragma once

#include "ops/array.hpp"
#include "ops/attrs.hpp"
#include "ops/op.hpp"

#include <optional>
#include <span>

namespace eqsat::rules {

// The value of `kind` applied to constant `operands`, with canonical
// `attrs` and static result type `result`; nullopt when the op is not
// folded or an element is undefined.
std::optional<ops::Array> fold_constant(ops::OpKind kind, const ops::Attrs& attrs,
                                        std::span<const ops::Array* const> operands,
                                        const ops::TensorType& result);

}  // namespace eqsat::rules
