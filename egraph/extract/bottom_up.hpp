// Tree-cost extraction: each class takes the node whose term, counted as a
// tree, is cheapest (egg's Extractor); cycles in the e-graph are handled.
#pragma once

#include "egraph/extract/extraction.hpp"

namespace eqsat::egraph {

// Minimizes each class's tree cost (node cost plus its children's tree
// costs, shared subterms counted per use), best-first: with costs >= 0 the
// cheapest class is final when taken, so each node is scored once. Classes
// whose tree cost overflows to infinity still get an acyclic choice.
// `optimal` is false: the result is optimal for tree cost, not for DAG
// cost. Throws ExtractionError if a root has no acyclic term.
Extraction extract_bottom_up(const ExtractionProblem& problem);

}  // namespace eqsat::egraph
