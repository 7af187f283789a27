// Evaluates one elementwise op on scalar values while optimizing: the
// constant folding of the tensor analysis, applied to the "every element
// equals c" facts of e-classes (a uniform tensor stays uniform under an
// elementwise op). The value is the executor's: its kernel runs on
// one-element arrays (const_fold.hpp), so an op's scalar semantics are
// written once, in its kernel.
#pragma once

#include "ops/dtype.hpp"
#include "ops/op.hpp"

#include <optional>
#include <span>

namespace eqsat::rules {

// A scalar value of a dtype; `value` holds it exactly for every dtype but
// i64 values beyond 2^53.
struct TypedScalar {
  ops::DType dtype;
  double value;
};

// `kind` (an elementwise op: unary, binary, where, or cast to `result`)
// applied to `operands`; the result has dtype `result`. nullopt when the op
// is not elementwise, the value is not defined (integer pow with a
// negative exponent), or it is an integer of magnitude 2^53 or more, which
// a double would round.
std::optional<double> eval_scalar(ops::OpKind kind, std::span<const TypedScalar> operands,
                                  ops::DType result);

// `value` converted to `dtype` as a cast would (wrap-around for integers,
// truncation towards zero from floats, nonzero → true for bool).
double convert_scalar(double value, ops::DType dtype);

}  // namespace eqsat::rules
