// Which unknown lengths of an e-class are the same length at run time. The
// acceptance graphs of PyTensor users have vectors and matrices of unknown
// length, where `σ(x) / σ(−x)` or `x − logsumexp(x, keepdims)` broadcast
// two operands whose lengths the types cannot compare, so the analysis
// could not tell that the op never fails, and a rewrite that drops it
// (to eˣ, to log_softmax x) was refused as losing a check. Each unknown
// axis gets a symbol: the axis of the value it was first seen on (a term
// id and an axis); elementwise ops, softmaxes, reductions and transposes
// pass their operands' symbols on, so equal symbols are equal lengths.
//
//   std::vector<DimSymbol> s = dim_symbols(kind, attrs, operand_symbols,
//                                          operand_types, result, rep_id);
#pragma once

#include "ops/term.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace eqsat::rules {

// The length of axis `axis` of the value of the term with id `term - 1`; a
// static axis has none (term 0).
struct DimSymbol {
  std::uint64_t term = 0;
  std::int64_t axis = 0;
  bool operator==(const DimSymbol&) const = default;
  bool known() const { return term != 0; }
};

// The symbols of each axis of the result `result` of `kind` (attributes
// `attrs`) over operands with `operands` symbols and `types`; an unknown
// axis no rule relates to an operand's gets (rep_id, axis).
std::vector<DimSymbol> dim_symbols(ops::OpKind kind, const ops::Attrs& attrs,
                                   std::span<const std::vector<DimSymbol>* const> operands,
                                   std::span<const ops::Type* const> types,
                                   const ops::TensorType& result, std::uint64_t rep_id);

// The operand types with each unknown axis that has a symbol replaced by a
// length of its own, equal for equal symbols: an elementwise op whose
// operands broadcast under these types broadcasts at run time, and a
// concat whose operands agree beside its axis agrees at run time.
std::vector<ops::Type> with_symbolic_lengths(
    std::span<const std::vector<DimSymbol>* const> operands,
    std::span<const ops::Type* const> types);

}  // namespace eqsat::rules
