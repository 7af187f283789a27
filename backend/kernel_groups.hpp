// Internal to the kernels: the entry points of each family of ops, one
// .cpp file per family; kernels.cpp dispatches to them by op group.
#pragma once

#include "kernels.hpp"

namespace eqsat::backend::detail {

using ops::Array;
using ops::Dims;
using ops::TermRef;

// elementwise.cpp: unary ops, cast, binary ops, where (NumPy broadcasting).
void elementwise_shape(TermRef op, Operands in, Dims& shape);
void run_elementwise(TermRef op, Operands in, Array& out);

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
