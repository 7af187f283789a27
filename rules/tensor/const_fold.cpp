#include "rules/tensor/const_fold.hpp"

#include "backend/kernels.hpp"
#include "backend/runtime_error.hpp"
#include "ops/term.hpp"
#include "ops/type_error.hpp"

#include <vector>

namespace eqsat::rules {

using ops::Array;
using ops::OpKind;

namespace {

// Ops folded by running the executor's own kernel on the constants: the
// folded value is what the executor would compute, bit for bit, in every
// dtype (no element goes through a double).
bool folded_by_kernel(OpKind kind) {
  if (ops::is_elementwise(kind)) return true;
  switch (ops::op_info(kind).group) {
    case ops::OpGroup::Reduction:
    case ops::OpGroup::Softmax:
    case ops::OpGroup::LinAlg:
    case ops::OpGroup::Indexing:
      return true;
    case ops::OpGroup::Shape:
      return kind == OpKind::Flip || kind == OpKind::Concat || kind == OpKind::Stack ||
             kind == OpKind::Transpose || kind == OpKind::BroadcastTo;
    case ops::OpGroup::Unary:
    case ops::OpGroup::Binary:
    case ops::OpGroup::Select:
      return true;  // elementwise: returned above
    case ops::OpGroup::Leaf:
    case ops::OpGroup::Creation:
    case ops::OpGroup::Control:
    case ops::OpGroup::Gradient:
      return false;
  }
  return false;
}

std::optional<Array> run_kernel(OpKind kind, const ops::Attrs& attrs,
                                std::span<const Array* const> xs, const ops::TensorType& result) {
  std::vector<ops::TermRef> operands;
  for (const Array* x : xs) operands.push_back(ops::Term::constant(*x));
  try {
    const ops::TermRef op = ops::Term::make(kind, attrs, std::move(operands));
    ops::Dims shape;
    backend::result_shape(op, xs, shape);
    if (shape != result.dims) return std::nullopt;
    Array out(result.dtype, shape);
    backend::run_kernel(op, xs, out);
    return out;
  } catch (const ops::TypeError&) {  // attributes that do not fit the operands
    return std::nullopt;
  } catch (const backend::RuntimeError&) {  // an index out of range, a max over nothing...
    return std::nullopt;
  }
}

}  // namespace

std::optional<Array> fold_constant(OpKind kind, const ops::Attrs& attrs,
                                   std::span<const Array* const> xs,
                                   const ops::TensorType& result) {
  if (!result.is_static()) return std::nullopt;
  if (ops::keeps_order(kind)) return xs[0]->clone().reshaped(result.dims);
  if (!folded_by_kernel(kind)) return std::nullopt;
  return run_kernel(kind, attrs, xs, result);
}

}  // namespace eqsat::rules
