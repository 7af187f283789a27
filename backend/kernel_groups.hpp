// Internal to the kernels: the entry points of each family of ops, one
// .cpp file per family; kernels.cpp dispatches to them by op group.
#pragma once

#include "kernels.hpp"

#include <array>

namespace eqsat::backend::detail {

using ops::Array;
using ops::Dims;
using ops::TermRef;

// elementwise.cpp: unary ops, cast, binary ops, where (NumPy broadcasting).
void elementwise_shape(TermRef op, Operands in, Dims& shape);
void run_elementwise(TermRef op, Operands in, Array& out);

// A fused elementwise expression (see Function): its ops in evaluation
// order; each source is a leaf (an operand of the fused instruction) or the
// result of an earlier op of the expression. The last op is the result.
struct FusedSource {
  bool leaf = true;
  int index = 0;
};
struct FusedOp {
  ops::OpKind kind;
  int arity = 1;
  std::array<FusedSource, 2> src;
};
inline constexpr std::size_t kMaxFusedOps = 16;

// True when `kind` may join a fused expression (float elementwise math:
// every unary op but logical_not and cast; add sub mul div pow maximum
// minimum).
bool fusable(ops::OpKind kind);

// Evaluates `program` in one pass over memory, a block of elements at a
// time, into `out` (f32 or f64); every leaf has out's dtype and either out's
// shape or a single element. `out` may share its buffer with a leaf.
void run_fused(std::span<const FusedOp> program, Operands leaves, Array& out);

// reduce.cpp: sum prod max min mean logsumexp, softmax, log_softmax.
void reduction_shape(TermRef op, Operands in, Dims& shape);
void run_reduction(TermRef op, Operands in, Array& out);
void run_softmax(TermRef op, Operands in, Array& out);

// dot.cpp: numpy.matmul.
void dot_shape(TermRef op, Operands in, Dims& shape);
void run_dot(TermRef op, Operands in, Array& out);

// shape_ops.cpp: reshape transpose expand_dims squeeze broadcast_to flip
// concat stack dim.
void shape_op_shape(TermRef op, Operands in, Dims& shape);
void run_shape_op(TermRef op, Operands in, Array& out);

// indexing.cpp: index slice set_index inc_index set_slice inc_slice.
void indexing_shape(TermRef op, Operands in, Dims& shape);
void run_indexing(TermRef op, Operands in, Array& out);

// creation.cpp: zeros ones full zeros_like ones_like arange.
void creation_shape(TermRef op, Operands in, Dims& shape);
void run_creation(TermRef op, Operands in, Array& out);

}  // namespace eqsat::backend::detail
