// The syntax of a `(scan ...)` form in a graph file (docs/language.md
// "Loops"): its keywords, slots and taps read and checked, before the graph
// parser evaluates the slots' expressions and builds the body.
#pragma once

#include "attrs.hpp"
#include "sexpr.hpp"

#include <vector>

namespace eqsat::ops {

// One sequence or mit-sot entry of a scan: its outer value and taps. Taps
// may be written in any order; they are kept sorted (so equal loops are
// one term), and `rank[i]` is the sorted position of the i-th tap written:
// the body's i-th parameter of this slot reads that tap.
struct SlotEntry {
  const SExpr* expr = nullptr;
  IntList taps;
  std::vector<std::size_t> rank{0};
};

// A scan form as written: pointers into the form for what the parser
// evaluates, and the parts of the layout the syntax fixes (:nit-sot,
// :until, :keep; the slot counts and taps are filled in by the parser).
struct ScanForm {
  const SExpr* n_steps = nullptr;
  std::vector<SlotEntry> sequences, mitsots;
  std::vector<const SExpr*> sitsots, nonsequences;
  const SExpr* keep_where = nullptr;  // the :keep list, when written
  const SExpr* fn = nullptr;          // the body, (fn (PARAMS...) OUTPUTS...)
  ScanSpec spec;
};

// Reads `(scan :KEY VALUE ... (fn ...))`; throws DiagnosticError at the
// offending keyword or value.
ScanForm read_scan_form(const SExpr& e);

}  // namespace eqsat::ops
