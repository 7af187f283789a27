// Graphviz pictures for `eqsat dot`: a graph's term DAG, or a saturated
// tensor e-graph. Bodies (a scan's or call's `fn`) are drawn as nested
// clusters, so a loop's work sits inside its loop. Boost.Graph's graphviz
// writer has no clusters, so the DOT text is written here.
//
//   std::string text = graph_dot(graph);            // data flows down
//   std::string all = egraph_dot(g, roots, model);  // after saturation
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "backend/cost_model.hpp"
#include "ops/graph.hpp"

#include <span>
#include <string>

namespace eqsat::rules {

// The term DAG of `graph`: one node per term (op, key attribute, type),
// an edge from each operand to its user, outputs as boxes, each body as a
// cluster inside the cluster (or top level) that first reaches it.
std::string graph_dot(const ops::Graph& graph);

// The clean e-graph `g`: one cluster per e-class reached from `roots`
// (label: class id and type), its e-nodes inside with their extraction cost
// and the e-node the extractor chooses filled (egraph_picture.hpp); an edge from
// an e-node to each child class; the classes of a body grouped in a cluster.
// Throws egraph::ExtractionError if a root has no acyclic term.
std::string egraph_dot(const TensorEGraph& g, std::span<const egraph::EClassId> roots,
                       const backend::CostModel& model);

}  // namespace eqsat::rules
