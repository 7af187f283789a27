// The `index-lift` built-in applier (see builtin_appliers.hpp): a read of
// part of a result computes only that part (PyTensor's local_subtensor_lift,
// local_subtensor_of_reduce and local_subtensor_of_softmax):
//
//   index(f(x), i)              = f(index(x, i))          f elementwise, unary
//   index(f(x, y), i)           = f(index(x, i), index(y, i))  binary, where
//   index(reduce(x, A), i)      = reduce(index(x, i), A − 1)   0 not in A
//   index(softmax(x, a), i)     = softmax(index(x, i), a − 1)  a ≠ 0
//   index(expand_dims(x, a), i) = expand_dims(index(x, i), a − 1)  a ≠ 0
//   slice(transpose(x, p), j)   = transpose(slice(x, p[j]), p)
//   index(concat(x, y), i)      = index(y, i − n)   constant i, x of n rows
//   index(sum(x, 0), i)         = sum(x[:, i], 0)   constant i in range
//
// and the same for a `slice` along an axis the op does not reduce or
// normalize (PyTensor's local_subtensor_of_expand_dims, _of_transpose and _of_join). An operand of
// lower rank, which broadcasting stretches along the read axis, is kept whole; an operand of full
// rank is read only where its length on that axis provably is the result's (static, or one dim
// symbol), so no broadcast check is dropped and no index check invented.
// An op that may fail element by element (an integer pow) is not lifted:
// reading fewer elements would drop its failure. Exact for every value:
// each element, and each reduced row, is computed from the same operands in
// the same order (backend/block_reduce.hpp: a row's fold does not depend
// on how many rows there are).
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_index_lift(TensorEGraph& g);

}  // namespace eqsat::rules
