// The saturated e-graph as the pictures show it (`eqsat dot --egraph`,
// `eqsat html`): the e-classes the roots reach, each e-node's extraction
// cost, the e-node the extractor chooses, and the body each class sits in.
// One gathering, so that every picture agrees on costs and choices.
//
//   EGraphPicture pic = egraph_picture(g, roots, model);
//   for (ProblemNodeId n : pic.problem.problem.nodes_of(c)) ... pic.chosen(n) ...
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "backend/cost_model.hpp"
#include "egraph/extract/extraction.hpp"
#include "egraph/extract/from_egraph.hpp"
#include "ops/attrs.hpp"
#include "ops/op.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace eqsat::rules {

struct EGraphPicture {
  static constexpr std::size_t kUnreached = static_cast<std::size_t>(-1);

  // A body (the class of a scan's or call's `fn` e-node) inside its parent
  // body; bodies[0] is the top level, whose `fn` means nothing.
  struct Body {
    std::size_t parent = 0;
    egraph::ProblemClassId fn{0};
  };

  // Every class of the clean e-graph, costs as extraction_cost counts them,
  // unstable and out-of-scope e-nodes forbidden (extract_graph.hpp).
  egraph::EGraphProblem problem;
  // Greedy-dag's choice for each class.
  egraph::Extraction choice;
  // Each body opens where the roots first reach it, breadth first; a parent
  // comes before its children.
  std::vector<Body> bodies{Body{}};
  // By problem class: its index in `bodies`, or kUnreached.
  std::vector<std::size_t> body_of;

  bool reached(egraph::ProblemClassId c) const { return body_of[c.value] != kUnreached; }
  bool chosen(egraph::ProblemClassId c, egraph::ProblemNodeId n) const {
    return choice.choices[c.value] && *choice.choices[c.value] == n;
  }
};

// The picture of the clean e-graph `g` from `roots`. Throws
// egraph::ExtractionError if a root has no acyclic term.
EGraphPicture egraph_picture(const TensorEGraph& g, std::span<const egraph::EClassId> roots,
                             const backend::CostModel& model);

// The op and the attribute that tells e-nodes of one op apart at a glance
// (`nominal 0`, `call f`, `const 2`).
std::string op_label(ops::OpKind kind, const ops::Attrs& attrs);

}  // namespace eqsat::rules
