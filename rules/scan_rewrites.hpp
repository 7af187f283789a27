// Built-in appliers that rewrite loops (see builtin_appliers.hpp):
//
//   scan-remove-unused     a non-sequence the body never reads is dropped
//   scan-inline-constants  a non-sequence whose value is a small constant
//                          (at most 64 elements) moves into the body
//   scan-merge-duplicates  a non-sequence with the same value as an earlier
//                          one is dropped; the body reads the earlier one
//
// Both rebuild the body with one parameter replaced (by nothing, or by the
// constant) and the later ones renumbered — DESIGN.md decision 6's
// substitution, applied to the body's representative term — and merge the
// new scan with the old one: same outer inputs otherwise, same results.
#pragma once

#include "tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_remove_unused(TensorEGraph& g);
egraph::Rewrite make_scan_inline_constants(TensorEGraph& g);
egraph::Rewrite make_scan_merge_duplicates(TensorEGraph& g);

// The body `fn` without parameter `slot`: nominal(slot) becomes `value` (a
// closed term or a nominal below `slot`; nullptr when the body does not
// read it) and the nominals above it move down by one.
ops::TermRef drop_parameter(ops::TermRef fn, std::int64_t slot, ops::TermRef value);

}  // namespace eqsat::rules
