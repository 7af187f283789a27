#include "egraph/extract/class_parents.hpp"

#include <algorithm>

namespace eqsat::egraph {

namespace {

// The distinct child classes of a node, sorted.
std::vector<ProblemClassId> distinct_classes(const ProblemNode& node) {
  std::vector<ProblemClassId> classes = node.children;
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  return classes;
}

}  // namespace

ClassParents::ClassParents(const ExtractionProblem& problem)
    : start_(problem.num_classes() + 1, 0), distinct_(problem.num_nodes(), 0) {
  const auto num_nodes = static_cast<std::uint32_t>(problem.num_nodes());
  for (std::uint32_t n = 0; n < num_nodes; ++n) {
    const ProblemNode& node = problem.node(ProblemNodeId{n});
    if (node.subsumed) continue;
    for (ProblemClassId child : distinct_classes(node)) {
      ++start_[child.value + 1];
      ++distinct_[n];
    }
  }
  for (std::size_t c = 0; c < problem.num_classes(); ++c) start_[c + 1] += start_[c];
  parents_.resize(start_.back());
  std::vector<std::uint32_t> fill(start_.begin(), start_.end() - 1);
  for (std::uint32_t n = 0; n < num_nodes; ++n) {
    const ProblemNode& node = problem.node(ProblemNodeId{n});
    if (node.subsumed) continue;
    for (ProblemClassId child : distinct_classes(node)) {
      parents_[fill[child.value]++] = ProblemNodeId{n};
    }
  }
}

}  // namespace eqsat::egraph
