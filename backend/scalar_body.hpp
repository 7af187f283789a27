// ScalarBody: a loop body whose values are all single floats (one dtype),
// compiled to a straight-line list of register operations. A scan over
// such a body (x = tanh(a x + b)) runs it step after step on a register
// file, with no buffers, no pool and no per-op kernel dispatch; each op
// computes the same bits as the array kernels (apply_unary/apply_binary).
#pragma once

#include "ops/dtype.hpp"
#include "ops/op.hpp"

#include <vector>

namespace eqsat::backend::detail {

// One element of a fusable op, the same bits as its array kernel.
template <class T>
T apply_unary(ops::OpKind kind, T x);
template <class T>
T apply_binary(ops::OpKind kind, T a, T b);

struct ScalarOp {
  ops::OpKind kind;
  int arity = 1;
  int dst = 0, a = 0, b = 0;  // registers
};

struct ScalarBody {
  ops::DType dtype = ops::DType::F64;
  int num_params = 0;             // registers 0 .. num_params-1
  std::vector<ScalarOp> ops;      // in order
  std::vector<double> constants;  // per register: its constant (others 0)
  std::vector<int> outputs;       // per body output: its register

  // Runs the ops on `registers` (params already set).
  template <class T>
  void run(T* registers) const {
    for (const ScalarOp& op : ops)
      registers[op.dst] = op.arity == 1
                              ? apply_unary<T>(op.kind, registers[op.a])
                              : apply_binary<T>(op.kind, registers[op.a], registers[op.b]);
  }
};

}  // namespace eqsat::backend::detail
