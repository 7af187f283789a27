// Source positions for an optimized graph: a term the optimizer built is
// equal to a written term of its e-class, so it fails (at run time) or is
// refused (a `grad` left unexpanded) where that term was written.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "ops/graph.hpp"

#include <absl/container/flat_hash_map.h>

#include <span>
#include <unordered_map>
#include <vector>

namespace eqsat::rules {

// The written graph's positions by e-class, read after saturation.
class WrittenLocations {
 public:
  // `graph` must have been added to `g` (add_graph).
  WrittenLocations(TensorEGraph& g, const ops::Graph& graph);

  // Where the class of `t` was written (a written term of t's op first);
  // nullptr when no written term of it has a position, or `t` is not in
  // the e-graph (a loop fused after extraction).
  const ops::SourceLocation* of(ops::TermRef t);

  // Gives every term under `roots` (bodies included) that has no position
  // of its own the position of its class, in `locations`; a term of no
  // written class gets that of the nearest term above it (breadth first).
  void carry(std::span<const ops::TermRef> roots,
             std::unordered_map<ops::TermRef, ops::SourceLocation>& locations);

 private:
  std::optional<egraph::EClassId> lookup(ops::TermRef t);

  // A loop the optimizer made keep fewer steps (scan-save-mem's `:keep`)
  // makes the checks of the same loop keeping all: where that was written.
  const ops::SourceLocation* of_all_steps(ops::TermRef scan);

  TensorEGraph& g_;
  const ops::Graph& graph_;
  struct Written {
    ops::OpKind kind;
    ops::SourceLocation where;
  };
  // Filled by the constructor only: `of` hands out pointers into it.
  absl::flat_hash_map<egraph::EClassId, std::vector<Written>> by_class_;
  absl::flat_hash_map<ops::TermRef, std::optional<egraph::EClassId>> memo_;
};

}  // namespace eqsat::rules
