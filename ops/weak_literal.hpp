// Weak numeric literals (docs/language.md "Types"): a literal such as `2` or
// `0.5` has no dtype of its own; it takes the dtype of the arrays it meets
// in the op that uses it. The parser resolves literals with this rule when
// it builds the op, and the printer uses the same rule to decide when a
// scalar constant can be written back as a bare literal.
#pragma once

#include "op.hpp"
#include "term.hpp"

#include <cstdint>
#include <span>

namespace eqsat::ops {

// A numeric literal as written: an integer or a float.
struct WeakLiteral {
  bool is_float = false;
  std::int64_t int_value = 0;
  double float_value = 0;

  // i64 for an integer, f64 for a float: the dtype when it meets no array.
  DType default_dtype() const { return is_float ? DType::F64 : DType::I64; }
  // The scalar Const term of this literal converted to `dtype`.
  TermRef to_term(DType dtype) const;
};

// One operand while an application is being built: a term, or a weak
// literal (`term == nullptr`) that is a float literal when `float_literal`.
struct PendingOperand {
  TermRef term = nullptr;
  bool float_literal = false;
};

// The dtype the weak literal at `operands[i]` takes in an application of
// `kind` with `attrs`. Its peers are the operands it meets elementwise: every
// operand of an elementwise op (for `where`, the two values), the target of
// `set_index`/`set_slice` and their `inc_` forms, the other operands of
// `dot`, `concat` and `stack`. It takes `promote(peers, literal)`; with no
// strong peer, all weak peers together give i64 or f64. Elsewhere: the
// parameter's dtype for an argument of `call`, `:dtype` for `full`, i64 for
// indices, lengths and `:n-steps`, and its default dtype otherwise.
DType weak_literal_dtype(OpKind kind, const Attrs& attrs, std::span<const PendingOperand> operands,
                         std::size_t i);

}  // namespace eqsat::ops
