#include "rules/pipeline/egraph_picture.hpp"

#include "rules/tensor/extract_graph.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ProblemClassId;
using egraph::ProblemNodeId;

EGraphPicture egraph_picture(const TensorEGraph& g, std::span<const EClassId> roots,
                             const backend::CostModel& model) {
  EGraphPicture pic;
  pic.problem = egraph::to_extraction_problem(g.egraph(), roots, extraction_cost(g, roots, model),
                                              [&](const egraph::EGraph&, egraph::ENodeId n) {
                                                return g.unstable(n) || reads_out_of_scope(g, n);
                                              });
  const egraph::ExtractionProblem& p = pic.problem.problem;
  pic.choice = extract_choice(g, pic.problem, egraph::ExtractorKind::GreedyDag);

  // The body each class belongs to: the first body (a class holding an
  // `fn` e-node) that reaches it from the roots, breadth first.
  pic.body_of.assign(p.num_classes(), EGraphPicture::kUnreached);
  std::vector<ProblemClassId> queue;
  for (ProblemClassId r : p.roots())
    if (!pic.reached(r)) {
      pic.body_of[r.value] = 0;
      queue.push_back(r);
    }
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const ProblemClassId c = queue[q];
    for (ProblemNodeId n : p.nodes_of(c)) {
      for (ProblemClassId k : p.node(n).children) {
        if (pic.reached(k)) continue;
        std::size_t body = pic.body_of[c.value];
        const bool is_body = std::ranges::any_of(p.nodes_of(k), [&](ProblemNodeId m) {
          return g.kind(pic.problem.enode[m.value]) == ops::OpKind::Fn;
        });
        if (is_body) {
          pic.bodies.push_back({body, k});
          body = pic.bodies.size() - 1;
        }
        pic.body_of[k.value] = body;
        queue.push_back(k);
      }
    }
  }
  return pic;
}

std::string op_label(ops::OpKind kind, const ops::Attrs& attrs) {
  std::string label(ops::op_name(kind));
  if (const auto* v = attrs.find(ops::AttrKey::Name); v && std::holds_alternative<std::string>(*v))
    label += " " + std::get<std::string>(*v);
  if (const auto* v = attrs.find(ops::AttrKey::Slot); v && std::holds_alternative<std::int64_t>(*v))
    label += fmt::format(" {}", std::get<std::int64_t>(*v));
  return label;
}

}  // namespace eqsat::rules
