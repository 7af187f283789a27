// Built-in appliers that rewrite loops (see builtin_appliers.hpp):
//
//   scan-inline-constants  a non-sequence whose value is a small constant
//                          (at most 64 elements) moves into the body; so
//                          does a sequence whose rows are all one small
//                          constant, when the step count is a constant it
//                          allows or every sequence length is static
//   scan-merge-duplicates  a non-sequence with the same value as an earlier
//                          one is dropped; the body reads the earlier one
//   scan-hoist-invariants  work in the body that reads only non-sequences
//                          is computed once outside and passed in as a new
//                          non-sequence (extraction keeps it outside when
//                          the trip count makes that cheaper)
//
// Each rebuilds the body with one parameter replaced (by a constant or an
// earlier parameter) and the later ones renumbered, or with one subterm
// replaced by a new parameter (the e-class substitution of substitute.hpp,
// docs/architecture.md decision 6), and merges the new scan with the
// old one: both compute the same results; extraction picks.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_inline_constants(TensorEGraph& g);
egraph::Rewrite make_scan_merge_duplicates(TensorEGraph& g);
egraph::Rewrite make_scan_hoist_invariants(TensorEGraph& g);

}  // namespace eqsat::rules
