// The catalogue at compile time: each op's group, fusion and grad column
// as constant expressions, and dispatch_op, the one switch over every op, so
// that kernel tables written as specializations per op (backend/) are read
// without hand-written switches and checked complete by the compiler.
#pragma once

#include "op.hpp"

#include "support/internal_error.hpp"

#include <type_traits>

namespace eqsat::ops {

// The group of each op as a constant expression, so that a table of
// kernels indexed by op at compile time can be checked to cover a group.
inline constexpr OpGroup kOpGroups[] = {
#define EQSAT_OP_GROUP(id, name, group, ...) OpGroup::group,
    EQSAT_OPS(EQSAT_OP_GROUP)
#undef EQSAT_OP_GROUP
};
constexpr OpGroup group_of(OpKind kind) {
  return kOpGroups[static_cast<int>(kind)];
}
// The fusion column likewise (which reductions the executor folds block by
// block).
inline constexpr Fusion kOpFusions[] = {
#define EQSAT_OP_FUSION(id, name, group, lo, hi, cost, fusion, ...) Fusion::fusion,
    EQSAT_OPS(EQSAT_OP_FUSION)
#undef EQSAT_OP_FUSION
};
constexpr Fusion fusion_of(OpKind kind) {
  return kOpFusions[static_cast<int>(kind)];
}

// The grad column likewise (which ops a table of pullbacks must cover).
inline constexpr Differentiability kOpDifferentiabilities[] = {
#define EQSAT_OP_GRAD(id, name, group, lo, hi, cost, fusion, grad, ...) Differentiability::grad,
    EQSAT_OPS(EQSAT_OP_GRAD)
#undef EQSAT_OP_GRAD
};
constexpr Differentiability differentiability_of(OpKind kind) {
  return kOpDifferentiabilities[static_cast<int>(kind)];
}

// Calls f(std::integral_constant<OpKind, K>{}) with K = kind: the one switch
// over every op, generated from the catalogue. A table written as
// specializations (`template <> struct BinaryMath<OpKind::Add>`) is read
// through it with `if constexpr (group_of(K) == ...)`, so an op of a group
// without its entry does not compile, and no `default:` hides it.
template <class F>
decltype(auto) dispatch_op(OpKind kind, F&& f) {
  switch (kind) {
#define EQSAT_OP_DISPATCH(id, ...) \
  case OpKind::id:                 \
    return f(std::integral_constant<OpKind, OpKind::id>{});
    EQSAT_OPS(EQSAT_OP_DISPATCH)
#undef EQSAT_OP_DISPATCH
  }
  EQSAT_ASSERT(false) << "op kind " << static_cast<int>(kind) << " is not in the catalogue";
  return f(std::integral_constant<OpKind, OpKind::Input>{});
}

}  // namespace eqsat::ops
