// The kernels of the executor: for every op of the catalogue that computes a
// value (all but leaves, control ops and grad), the run-time shape of its
// result and the computation itself. The executor allocates (or reuses) the
// output buffer between the two calls, so a kernel never allocates its
// result; it may allocate temporaries (e.g. to promote a mixed-dtype operand).
#pragma once

#include "ops/array.hpp"
#include "ops/term.hpp"

#include <span>

namespace eqsat::backend {

// The operand values of one application, in operand order.
using Operands = std::span<const ops::Array* const>;

// Sets `shape` to the shape of `op`'s result for these operand values (its
// dtype is the static one). Reuses `shape`'s storage. Throws RuntimeError
// (message starting with the op's name) when they do not fit the op: shapes
// that do not broadcast, an index out of range, a reshape of the wrong size.
void result_shape(ops::TermRef op, Operands operands, ops::Dims& shape);

// Computes `op` on `operands` into `out`, which has the op's dtype and the
// shape result_shape gave; `out`'s previous contents are ignored. `out` may
// share its buffer with an operand only when `may_write_in_place` allows it.
void run_kernel(ops::TermRef op, Operands operands, ops::Array& out);

// True when `out` may share its buffer with operand `i` of `op`:
// elementwise ops whose operand has the result's dtype and shape, and the
// target of set_index/inc_index/set_slice/inc_slice (then updated in place).
bool may_write_in_place(ops::TermRef op, std::size_t i, const ops::Array& operand,
                        const ops::DType out_dtype, const ops::Dims& out_shape);

// True when `op`'s result is its first operand re-indexed without moving
// data (reshape, expand_dims, squeeze, cast to the same dtype): the executor
// shares the operand's buffer instead of running a kernel.
bool is_view(ops::TermRef op);

// True when run_kernel covers `kind` (every op but leaves, fn, scan, call,
// get and grad). Derived from the catalogue: a new op without a kernel
// fails the backend's tests.
bool has_kernel(ops::OpKind kind);

}  // namespace eqsat::backend
