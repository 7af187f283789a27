// The loop cut down to some of its outputs, the core of scan-remove-unused
// (see scan_remove_unused.hpp for what goes): shared with scan-to-reduction,
// which drops the accumulator its reduction replaces, so that the loop left
// holds no state nobody reads and the next accumulator can go the same way.
#pragma once

#include "rules/loops/scan_view.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace eqsat::rules {

// A loop cut down to some of its outputs: the new loop and, per old output
// index, its index in the new tuple (-1 when dropped).
struct PrunedLoop {
  egraph::EClassId scan;
  std::vector<std::int64_t> index_of;
  bool same_tuple = false;  // every output kept, at its index
};

// The loop of `s` computing the outputs in `wanted` and what they need
// through the body (the stop flag's needs included), without the rest;
// nullopt when nothing can go, the body's class has no form with one
// output per slot, or the rebuilt loop does not type-check. The old loop
// is left as it is.
std::optional<PrunedLoop> prune_loop(TensorEGraph& g, const ScanView& s,
                                     const std::set<std::size_t>& wanted);

// Merges each output of loop `old` the prune kept, (get i old), with its
// read of the new loop (`p` may come from a view of `old` with outputs
// appended: those have no read of `old`); true when the e-graph changed.
bool merge_kept_outputs(TensorEGraph& g, egraph::EClassId old, const PrunedLoop& p);

}  // namespace eqsat::rules
