#include "extract_graph.hpp"

#include <fmt/format.h>

#include <cmath>

#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ProblemClassId;

double node_cost(ops::OpKind kind, std::span<const ops::Type> operand_types,
                 const ops::Type& result, const backend::CostModel& model) {
  if (kind == ops::OpKind::Grad) return kGradCost;
  const double c = model.op_cost(kind, operand_types, result);
  return std::isfinite(c) ? c : kGradCost;
}

ExtractedTerms extract_terms(const TensorEGraph& g, std::span<const EClassId> roots,
                             const backend::CostModel& model, egraph::ExtractorKind kind) {
  const egraph::EGraph& eg = g.egraph();
  egraph::ExtractionProblem problem;
  std::unordered_map<EClassId, ProblemClassId> pclass;
  std::vector<EClassId> eclass_of;
  for (EClassId c : eg.classes()) {
    pclass.emplace(c, problem.add_class());
    eclass_of.push_back(c);
  }
  std::vector<egraph::ENodeId> enode_of;
  std::vector<ops::Type> types;
  for (EClassId c : eg.classes()) {
    for (egraph::ENodeId n : eg.nodes(c)) {
      std::vector<ProblemClassId> kids;
      types.clear();
      for (EClassId k : eg.children(n)) {
        kids.push_back(pclass.at(eg.find(k)));
        types.push_back(g.type(k));
      }
      problem.add_node(pclass.at(c), node_cost(g.kind(n), types, g.type(c), model),
                       std::move(kids));
      enode_of.push_back(n);
    }
  }
  for (EClassId r : roots) problem.add_root(pclass.at(eg.find(r)));
  const egraph::Extraction x = egraph::extract(problem, kind);

  // Terms in the extraction's order: children before parents.
  std::vector<ops::TermRef> term_of(problem.num_classes(), nullptr);
  for (ProblemClassId pc : x.order) {
    const egraph::ProblemNodeId pn = *x.choices[pc.value];
    const egraph::ENodeId n = enode_of[pn.value];
    std::vector<ops::TermRef> operands;
    for (ProblemClassId k : problem.node(pn).children) operands.push_back(term_of[k.value]);
    term_of[pc.value] = ops::Term::make(g.kind(n), g.attrs(n), std::move(operands));
  }
  ExtractedTerms out;
  out.cost = x.dag_cost;
  for (EClassId r : roots) out.roots.push_back(term_of[pclass.at(eg.find(r)).value]);
  return out;
}

double dag_cost(std::span<const ops::TermRef> roots, const backend::CostModel& model) {
  std::unordered_set<ops::TermRef> seen;
  std::vector<ops::TermRef> stack(roots.begin(), roots.end());
  std::vector<ops::Type> types;
  double total = 0;
  while (!stack.empty()) {
    ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    types.clear();
    for (ops::TermRef o : t->operands()) {
      types.push_back(o->type());
      stack.push_back(o);
    }
    total += node_cost(t->kind(), types, t->type(), model);
  }
  return total;
}

}  // namespace eqsat::rules
