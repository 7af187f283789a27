#include "egraph/extract/problem.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>

namespace eqsat::egraph {

ProblemClassId ExtractionProblem::add_class() {
  if (class_nodes_.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw ProblemError("extraction problem: too many classes");
  }
  class_nodes_.emplace_back();
  return ProblemClassId{static_cast<std::uint32_t>(class_nodes_.size() - 1)};
}

ProblemNodeId ExtractionProblem::add_node(ProblemClassId eclass, double cost,
                                          std::vector<ProblemClassId> children, bool subsumed) {
  if (eclass.value >= num_classes()) {
    throw ProblemError("extraction problem: node added to class " + std::to_string(eclass.value) +
                       " of " + std::to_string(num_classes()));
  }
  for (ProblemClassId child : children) {
    if (child.value >= num_classes()) {
      throw ProblemError("extraction problem: child class " + std::to_string(child.value) + " of " +
                         std::to_string(num_classes()));
    }
  }
  if (!std::isfinite(cost)) {
    throw ProblemError("extraction problem: cost " + std::to_string(cost) + " is not finite");
  }
  if (!std::isfinite(magnitude_ + std::abs(cost))) {
    throw ProblemError(fmt::format("extraction problem: cost {}", cost) +
                       " makes the total of all costs overflow a double");
  }
  magnitude_ += std::abs(cost);
  if (cost < 0.0) has_negative_costs_ = true;
  if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw ProblemError("extraction problem: too many nodes");
  }
  ProblemNodeId id{static_cast<std::uint32_t>(nodes_.size())};
  nodes_.push_back(ProblemNode{eclass, cost, std::move(children), subsumed});
  class_nodes_[eclass.value].push_back(id);
  return id;
}

void ExtractionProblem::add_root(ProblemClassId eclass) {
  if (eclass.value >= num_classes()) {
    throw ProblemError("extraction problem: root class " + std::to_string(eclass.value) + " of " +
                       std::to_string(num_classes()));
  }
  if (is_root_.size() < num_classes()) is_root_.resize(num_classes(), false);
  if (!is_root_[eclass.value]) {
    is_root_[eclass.value] = true;
    roots_.push_back(eclass);
  }
}

void ExtractionProblem::forbid(ProblemNodeId node) {
  if (node.value >= num_nodes()) {
    throw ProblemError("extraction problem: node " + std::to_string(node.value) + " of " +
                       std::to_string(num_nodes()));
  }
  nodes_[node.value].forbidden = true;
  has_forbidden_ = true;
}

}  // namespace eqsat::egraph
