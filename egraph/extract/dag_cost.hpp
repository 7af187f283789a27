// The DAG cost of per-class choices from a problem's roots, measured again
// and again on one problem (trial changes of an extraction) at the cost of
// what the choices reach each time, not of the problem's size.
#pragma once

#include "egraph/extract/problem.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace eqsat::egraph {

// The DAG cost of `choices` from the roots, or nullopt when the chosen
// nodes close a cycle or a reached class has no choice. `stamp` and
// `state` are scratch space kept between
// calls (a class is unseen unless its stamp is this call's), so a call
// costs what the extraction reaches, not the problem's size.
class DagCost {
 public:
  explicit DagCost(const ExtractionProblem& problem)
      : problem_(problem), stamp_(problem.num_classes(), 0), state_(problem.num_classes(), 0) {}

  std::optional<double> operator()(std::span<const std::optional<ProblemNodeId>> choices) {
    ++now_;
    double cost = 0;
    std::vector<std::pair<ProblemClassId, std::size_t>> stack;
    for (ProblemClassId root : problem_.roots()) {
      if (seen(root)) continue;
      enter(root, stack);
      while (!stack.empty()) {
        auto& [c, next] = stack.back();
        if (!choices[c.value]) return std::nullopt;
        const ProblemNode& node = problem_.node(*choices[c.value]);
        if (next < node.children.size()) {
          const ProblemClassId child = node.children[next++];
          if (!seen(child)) {
            enter(child, stack);
          } else if (state_[child.value] == 1) {
            return std::nullopt;  // on the stack: a cycle
          }
          continue;
        }
        cost += node.cost;
        state_[c.value] = 2;
        stack.pop_back();
      }
    }
    return cost;
  }

 private:
  bool seen(ProblemClassId c) const { return stamp_[c.value] == now_; }
  void enter(ProblemClassId c, std::vector<std::pair<ProblemClassId, std::size_t>>& stack) {
    stamp_[c.value] = now_;
    state_[c.value] = 1;
    stack.emplace_back(c, 0);
  }

  const ExtractionProblem& problem_;
  std::vector<std::uint32_t> stamp_;
  std::vector<std::uint8_t> state_;  // 1 on the stack, 2 done (for this stamp)
  std::uint32_t now_ = 0;
};

}  // namespace eqsat::egraph
