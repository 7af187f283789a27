#include "egraph/extract/from_egraph.hpp"

#include "support/internal_error.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace eqsat::egraph {

double ast_size(const EGraph&, ENodeId) {
  return 1.0;
}

EGraphProblem to_extraction_problem(const EGraph& egraph, std::span<const EClassId> roots,
                                    const ENodeCost& cost, const ENodeFilter& forbidden) {
  EQSAT_ASSERT(egraph.clean()) << "to_extraction_problem: the e-graph needs a rebuild() first";
  EGraphProblem out;
  out.class_index.assign(egraph.num_class_ids(), std::numeric_limits<std::uint32_t>::max());
  for (EClassId c : egraph.classes()) {
    out.class_index[c.index()] = out.problem.add_class().value;
    out.eclass.push_back(c);
  }
  std::vector<ProblemClassId> children;
  for (EClassId c : egraph.classes()) {
    for (ENodeId n : egraph.nodes(c)) {
      children.clear();
      for (EClassId child : egraph.children(n))
        children.push_back(out.class_of(egraph.find(child)));
      const ProblemNodeId added = out.problem.add_node(out.class_of(c), cost(egraph, n), children);
      if (forbidden && forbidden(egraph, n)) out.problem.forbid(added);
      out.enode.push_back(n);
    }
  }
  for (EClassId root : roots) out.problem.add_root(out.class_of(egraph.find(root)));
  return out;
}

ExtractedTerm extracted_term(const EGraph& egraph, const EGraphProblem& problem,
                             const Extraction& extraction) {
  ExtractedTerm out;
  std::vector<std::uint32_t> index(problem.problem.num_classes(),
                                   std::numeric_limits<std::uint32_t>::max());
  std::vector<std::uint32_t> children;
  for (ProblemClassId c : extraction.order) {
    const ProblemNodeId chosen = *extraction.choices[c.value];
    const ENodeId n = problem.enode[chosen.value];
    children.clear();
    for (ProblemClassId child : problem.problem.node(chosen).children) {
      children.push_back(index[child.value]);
    }
    index[c.value] = out.expr.add(egraph.op(n), egraph.payload(n), children);
  }
  for (ProblemClassId root : problem.problem.roots()) out.roots.push_back(index[root.value]);
  return out;
}

RecExpr extract_best(const EGraph& egraph, EClassId root, ExtractorKind kind, const ENodeCost& cost,
                     double time_limit_seconds) {
  const EClassId roots[] = {root};
  const EGraphProblem problem = to_extraction_problem(egraph, roots, cost);
  const Extraction extraction = extract(problem.problem, kind, time_limit_seconds);
  return extracted_term(egraph, problem, extraction).expr;
}

SerializedEGraph to_serialized(const EGraph& egraph, std::span<const EClassId> roots,
                               const ENodeCost& cost, const Syntax& syntax) {
  EGraphProblem converted = to_extraction_problem(egraph, roots, cost);
  SerializedEGraph out;
  for (EClassId c : converted.eclass) out.class_ids.push_back(fmt::format("c{}", c.value()));
  for (ENodeId n : converted.enode) {
    out.node_ids.push_back(fmt::format("n{}", n.value()));
    out.ops.push_back(syntax.print(egraph.op(n), egraph.payload(n)));
  }
  out.problem = std::move(converted.problem);
  return out;
}

}  // namespace eqsat::egraph
