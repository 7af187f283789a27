// Constant folding of small arrays while optimizing: the shape ops that
// only reshape (reshape, expand_dims, squeeze) by sharing the buffer;
// elementwise ops, transpose, broadcast_to, reductions, softmax, dot,
// indexing, flip, concat and stack by running the executor's kernel on the
// constants, so a folded value is the executor's, bit for bit, in every
// dtype (an index out of range or an integer division by zero is not
// folded).
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
