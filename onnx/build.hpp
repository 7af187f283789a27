// Small term builders the translators share: scalars, casts, folds of
// variadic ops, axis moves, and the dtype of ONNX's `to` attributes.
#pragma once

#include "node_context.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace eqsat::onnx {

// `t` cast to `dtype` (t itself when it has that dtype already).
ops::TermRef cast_to(const NodeContext& ctx, ops::TermRef t, ops::DType dtype);
// `(kind a b)` folded over every operand of the node, left to right.
ops::TermRef fold_inputs(const NodeContext& ctx, ops::OpKind kind);
// Our dtype for ONNX element type `elem` (`to` of Cast, `dtype` of
// ConstantOfShape...); refuses another by name.
ops::DType dtype_attr(const NodeContext& ctx, std::int64_t elem);
// `(transpose t :perm P)` moving axis `from` to position `to`.
ops::TermRef move_axis(const NodeContext& ctx, ops::TermRef t, int from, int to);
// `(reshape t :shape S)`.
ops::TermRef reshape(const NodeContext& ctx, ops::TermRef t, const ops::Dims& shape);
// `(slice t :axis A :start S :stop E :step K)`.
// An omitted stop runs to the end (to the beginning for a negative step).
ops::TermRef slice(const NodeContext& ctx, ops::TermRef t, int axis, std::int64_t start,
                   std::optional<std::int64_t> stop, std::int64_t step = 1);
// A constant holding `values` with `dims`, in `dtype`.
ops::TermRef int_constant(ops::DType dtype, const ops::Dims& dims,
                          const std::vector<std::int64_t>& values);
// A reduction `kind` over `axes` (all when empty).
ops::TermRef reduce(const NodeContext& ctx, ops::OpKind kind, ops::TermRef t,
                    const std::vector<std::int64_t>& axes, bool keepdims);

}  // namespace eqsat::onnx
