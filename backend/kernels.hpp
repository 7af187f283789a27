// The kernels of the executor: for every op of the catalogue that computes a
// value (all but leaves and control ops), the run-time shape of its result
// and the computation itself on Eigen. The executor allocates (or reuses)
// the output buffer between the two calls, so a kernel never allocates its
// result.
#pragma once

#include "ops/array.hpp"
#include "ops/term.hpp"

#include <span>

namespace eqsat::backend {

// The shape of `op`'s result for these operand values (its dtype is the
// static one). Throws RuntimeError when they do not fit the op (shapes that
// do not broadcast, an index out of range, a reshape of the wrong size).
ops::Dims result_shape(ops::TermRef op, std::span<const ops::Array> operands);

// Computes `op` on `operands` into `out`, which has the op's dtype and the
// shape result_shape returned. `out` may share its buffer with an operand
// only for elementwise ops whose operand has out's dtype and shape.
void run_kernel(ops::TermRef op, std::span<const ops::Array> operands, ops::Array& out);

// True when run_kernel covers `kind` (every op but leaves, fn, scan, call,
// get and grad).
bool has_kernel(ops::OpKind kind);

}  // namespace eqsat::backend
