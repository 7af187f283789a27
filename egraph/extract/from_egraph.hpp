// Extraction from an EGraph: its clean state as an ExtractionProblem (with a
// per-e-node cost callback), the extracted DAG read back as a RecExpr, and
// any EGraph exported as egraph-serialize JSON.
#pragma once

#include "egraph/egraph.hpp"
#include "egraph/extract/extraction.hpp"
#include "egraph/extract/extractor.hpp"
#include "egraph/extract/problem.hpp"
#include "egraph/rec_expr.hpp"
#include "egraph/serialize.hpp"
#include "egraph/syntax.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace eqsat::egraph {

// The cost of one e-node alone (its children are added by the extractor);
// must be finite and >= 0.
using ENodeCost = std::function<double(const EGraph&, ENodeId)>;

// A yes/no question about one e-node.
using ENodeFilter = std::function<bool(const EGraph&, ENodeId)>;

// Every e-node costs 1 (egg's AstSize).
double ast_size(const EGraph& egraph, ENodeId node);

// An e-graph's extraction problem and the way back: problem class k is
// e-class `eclass[k]`, problem node k is e-node `enode[k]`.
struct EGraphProblem {
  ExtractionProblem problem;
  std::vector<EClassId> eclass;  // by ProblemClassId
  std::vector<ENodeId> enode;    // by ProblemNodeId
  // The problem class of canonical e-class c.
  ProblemClassId class_of(EClassId c) const { return ProblemClassId{class_index[c.index()]}; }
  std::vector<std::uint32_t> class_index;  // by e-class id; only canonical ids are meaningful
};

// Converts the e-graph, which must be clean (throws InternalError
// otherwise): problem classes in canonical id order, each with its visible
// e-nodes in the e-graph's order, costs from `cost` (ProblemError if one is
// negative or not finite); roots are the canonical classes of `roots`. The
// e-nodes for which `forbidden` (if given) is true are forbidden
// (`ExtractionProblem::forbid`: chosen only where their class cannot do
// without them).
EGraphProblem to_extraction_problem(const EGraph& egraph, std::span<const EClassId> roots,
                                    const ENodeCost& cost = ast_size,
                                    const ENodeFilter& forbidden = {});

// The extracted DAG as one RecExpr: one node per chosen class, children
// first, a shared class once. `roots[i]` is the index of the problem's i-th
// root.
struct ExtractedTerm {
  RecExpr expr;
  std::vector<std::uint32_t> roots;
};
ExtractedTerm extracted_term(const EGraph& egraph, const EGraphProblem& problem,
                             const Extraction& extraction);

// The best term of class `root` by `kind` (its root is the last node).
// Throws ExtractionError if the class has no acyclic term.
RecExpr extract_best(const EGraph& egraph, EClassId root, ExtractorKind kind,
                     const ENodeCost& cost = ast_size, double time_limit_seconds = 10.0);

// The e-graph as egraph-serialize data: class ids "c<ID>" and node ids
// "n<ID>" from the e-graph's ids, ops printed by `syntax` (`f`, `f@3`),
// costs from `cost`. Write it with to_serialized_json. Must be clean.
SerializedEGraph to_serialized(const EGraph& egraph, std::span<const EClassId> roots,
                               const ENodeCost& cost = ast_size,
                               const Syntax& syntax = Syntax::standard());

}  // namespace eqsat::egraph
