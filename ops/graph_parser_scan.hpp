// The graph parser's evaluation of a `(scan ...)` form, apart from the
// parser (graph_parser.cpp): the slots' operands and body parameter types,
// and the checks of the body's parameters and outputs against the slots.
// The parser evaluates expressions and builds the body in its scopes;
// internal to ops.
#pragma once

#include "scan_form.hpp"
#include "term.hpp"
#include "weak_literal.hpp"

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::ops::parsing {

// An expression's value: a term, or a weak literal (`term == nullptr`)
// that gets its dtype from the op that uses it.
struct Value {
  TermRef term = nullptr;
  WeakLiteral literal;

  // The term, a literal taking its default dtype.
  TermRef strong() const { return term ? term : literal.to_term(literal.default_dtype()); }
  PendingOperand pending() const { return {term, literal.is_float}; }
};

inline std::string plural(std::size_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// The outer operands of a scan, the body parameters they give and the
// states the body's outputs must match.
struct ScanOperands {
  std::vector<TermRef> operands{nullptr};  // operand 0: the body, once built
  std::vector<SourceLocation> where;
  std::vector<TensorType> params, states;
  // The body parameter written at position p is nominal slot_of[p]: taps
  // written out of order read their sorted slots.
  std::vector<std::int64_t> slot_of;
  std::size_t num_taps[2] = {0, 0};                         // sequence taps, mit-sot taps
  std::vector<std::optional<WeakLiteral>> sitsot_literals;  // a literal initial state
};

// The outer operands of a scan in slot order (operand 0, the body, comes
// last), each slot's expression evaluated by `eval`, and the body
// parameter types they give; fills in the slot counts and taps of
// `form.spec`.
ScanOperands scan_operands(ScanForm& form, const std::function<Value(const SExpr&)>& eval);

// The body's parameter list has one name per parameter the slots give.
void check_scan_params(const ScanForm& form, const ScanOperands& slots);

// The body's output terms from its output values: as many as the layout
// needs, a literal next state taking its state's dtype.
std::vector<TermRef> scan_body_results(const ScanForm& form, const ScanOperands& slots,
                                       const std::vector<Value>& outputs);

// A literal initial state meets the body's next state: `:sit-sot (0)`
// whose body computes floats is a float state. True when a state was
// retyped, and the body must be built again.
bool retype_literal_states(const ScanForm& form, ScanOperands& slots, TermRef body_fn);

// The body's outputs fit their states, the stop flag is a bool scalar and
// :keep has one entry per output.
void check_scan_outputs(const ScanForm& form, const ScanOperands& slots, TermRef body_fn,
                        const std::vector<SourceLocation>& out_where);

}  // namespace eqsat::ops::parsing
