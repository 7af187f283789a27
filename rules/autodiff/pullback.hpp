// Pullbacks (vector-Jacobian products) of the ops, for reverse-mode
// differentiation of terms (docs/architecture.md decision 7). Each op of op_list.hpp
// says how it takes part (`differentiability`, a column of the catalogue),
// and `pullback` builds its operands' cotangent terms with `Term::make`;
// tests/ops/test_op_catalogue.cpp checks that every Smooth op has one.
//
//   TermRef y = Term::make(OpKind::Exp, {}, {x});
//   auto gx = pullback(y, g);   // gx[0] == (mul g y)
#pragma once

#include "ops/term.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace eqsat::ops {

// A term that reverse-mode differentiation cannot handle, with a message
// starting with "grad: ".
class PullbackError : public std::runtime_error {
 public:
  explicit PullbackError(const std::string& message) : std::runtime_error(message) {}
};

// The pullback contract. `y` is an application of a Smooth or Zero op and
// `gy` the cotangent of y: a term of y's type (a float tensor). Returns
// one entry per operand of y: the operand's cotangent, a term of exactly
// that operand's type (broadcasting undone by `sum` over the broadcast axes,
// a float dtype cast back), or nullptr when no cotangent flows to it (Zero
// ops, non-float operands, index operands). The terms are built from y, its
// operands and gy only, in stable forms (log_softmax's pullback never takes
// exp of an unbounded value). Throws PullbackError for Unsupported ops and
// for shapes a pullback needs statically (reshape or concat over unknown
// dimensions).
std::vector<TermRef> pullback(TermRef y, TermRef gy);

// The cotangent `g` brought back to `operand`'s type after broadcasting:
// summed over the axes `operand` was broadcast along, then cast to its
// dtype. Along an axis of unknown length, whether it was broadcast is
// decided when the graph runs, from the length of `operand`'s axis; the
// last `fixed_axes` axes are never broadcast (a matrix's two in a product,
// all of them for a unary op's cotangent), nor an axis whose length is
// provably that of `result`'s axis aligned with it from the right (the
// elementwise op's value: term_dim_symbols.hpp).
TermRef unbroadcast(TermRef g, TermRef operand, std::int64_t fixed_axes = 0,
                    TermRef result = nullptr);

}  // namespace eqsat::ops
