// For each class of an extraction problem, the nodes that use it as a child:
// the reverse edges the bottom-up extractors follow when a class improves.
#pragma once

#include "egraph/extract/problem.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace eqsat::egraph {

// Compressed reverse index. Each non-subsumed node appears once under each
// distinct child class, in node id order. `distinct_children(n)` counts the
// distinct child classes of node n.
class ClassParents {
 public:
  explicit ClassParents(const ExtractionProblem& problem);
  std::span<const ProblemNodeId> of(ProblemClassId eclass) const {
    return {parents_.data() + start_[eclass.value], parents_.data() + start_[eclass.value + 1]};
  }
  std::uint32_t distinct_children(ProblemNodeId node) const { return distinct_[node.value]; }

 private:
  std::vector<std::uint32_t> start_;  // num_classes + 1 offsets into parents_
  std::vector<ProblemNodeId> parents_;
  std::vector<std::uint32_t> distinct_;
};

}  // namespace eqsat::egraph
