// The dim symbols (dim_symbols.hpp) of a term's axes, from the term's own
// structure rather than an e-class. The gradient undoes broadcasting along
// an axis of unknown length by a decision at run time (sum where the
// operand's length is 1); where the operand's axis is provably the
// result's, nothing was broadcast there and the decision is dead weight in
// every gradient of a graph of unknown shapes.
//
//   bool same = same_length(x, 0, Term::make(OpKind::Add, {}, {x, y}), 0);
#pragma once

#include "rules/tensor/dim_symbols.hpp"

#include "ops/term.hpp"

#include <cstdint>
#include <vector>

namespace eqsat::rules {

// One symbol per axis of `t` (none for a tuple): equal known symbols are
// equal lengths at run time. Terms are interned and never change, so the
// symbols are kept per thread by term.
const std::vector<DimSymbol>& term_dim_symbols(ops::TermRef t);

// True when axis `a` of `x` and axis `b` of `y` are proven to have the
// same length when the graph runs: equal static lengths, or one symbol.
bool same_length(ops::TermRef x, std::int64_t a, ops::TermRef y, std::int64_t b);

}  // namespace eqsat::rules
