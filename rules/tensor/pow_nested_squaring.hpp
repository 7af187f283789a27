// The `pow-nested-squaring` built-in applier (see builtin_appliers.hpp):
// a float power by a uniform integer constant n, 3 <= |n| <= 1024, as
// nested squarings and products (PyTensor's local_pow_to_nested_squaring):
//
//   x¹⁵ = x · x² · x⁴ · x⁸   with x² = square(x), x⁴ = square(x²), ...
//   x¹⁶ = square(square(square(square(x))))
//   x⁻ⁿ = reciprocal(xⁿ)
//
// Each product rounds, so the result differs from pow's in the last bits
// and may overflow where pow does not (x⁻ⁿ for tiny x): fast-math only.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_pow_nested_squaring(TensorEGraph& g);

}  // namespace eqsat::rules
