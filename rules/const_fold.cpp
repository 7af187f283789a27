#include "const_fold.hpp"

#include "scalar_eval.hpp"

#include "backend/kernels.hpp"
#include "backend/runtime_error.hpp"
#include "ops/term.hpp"
#include "ops/type_error.hpp"

#include <vector>

namespace eqsat::rules {

using ops::Array;
using ops::OpKind;

namespace {

// Row-major strides of `shape`, aligned to the right of a rank-`rank`
// result, with stride 0 on broadcast dimensions.
std::vector<std::int64_t> broadcast_strides(const ops::Dims& shape, std::size_t rank) {
  std::vector<std::int64_t> strides(rank, 0);
  std::int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    const std::size_t at = rank - shape.size() + i;
    strides[at] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  return strides;
}

void set_element(Array& a, std::int64_t i, double v) {
  ops::visit_dtype(a.dtype(), [&]<class T>(std::type_identity<T>) {
    a.data<T>()[i] = static_cast<T>(convert_scalar(v, a.dtype()));
  });
}

std::optional<Array> elementwise(OpKind kind, std::span<const Array* const> xs,
                                 const ops::TensorType& result) {
  Array out(result.dtype, result.dims);
  const std::size_t rank = result.dims.size();
  std::vector<std::vector<std::int64_t>> strides;
  for (const Array* x : xs) strides.push_back(broadcast_strides(x->shape(), rank));
  std::vector<std::int64_t> index(rank, 0);
  std::vector<TypedScalar> args(xs.size());
  for (std::int64_t flat = 0; flat < out.size(); ++flat) {
    for (std::size_t k = 0; k < xs.size(); ++k) {
      std::int64_t at = 0;
      for (std::size_t d = 0; d < rank; ++d) at += index[d] * strides[k][d];
      args[k] = {xs[k]->dtype(), xs[k]->element(at)};
    }
    const auto v = eval_scalar(kind, args, result.dtype);
    if (!v) return std::nullopt;
    set_element(out, flat, *v);
    for (std::size_t d = rank; d-- > 0;) {  // next row-major index
      if (++index[d] < result.dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

Array transposed(const Array& x, const ops::IntList& perm, const ops::TensorType& result) {
  Array out(result.dtype, result.dims);
  const std::size_t rank = perm.size();
  const auto in_strides = broadcast_strides(x.shape(), rank);
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t flat = 0; flat < out.size(); ++flat) {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < rank; ++d) at += index[d] * in_strides[perm[d]];
    set_element(out, flat, x.element(at));
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < result.dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// Ops folded by running the executor's own kernel on the constants.
bool folded_by_kernel(OpKind kind) {
  switch (ops::op_info(kind).group) {
    case ops::OpGroup::Reduction:
    case ops::OpGroup::Softmax:
    case ops::OpGroup::LinAlg:
    case ops::OpGroup::Indexing:
      return true;
    case ops::OpGroup::Shape:
      return kind == OpKind::Flip || kind == OpKind::Concat || kind == OpKind::Stack;
    default:
      return false;
  }
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
  switch (kind) {
    case OpKind::Transpose:
      return transposed(*xs[0], attrs.get<ops::IntList>(ops::AttrKey::Perm), result);
    case OpKind::BroadcastTo:
      return elementwise(OpKind::Cast, xs, result);  // a cast to its own dtype copies
    default:
      break;
  }
  if (folded_by_kernel(kind)) return run_kernel(kind, attrs, xs, result);
  if (!ops::is_elementwise(kind)) return std::nullopt;
  return elementwise(kind, xs, result);
}

}  // namespace eqsat::rules
