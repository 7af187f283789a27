// DAG-aware greedy extraction (extraction-gym's greedy-dag): a class pays
// for the union of the nodes below it, each shared node once.
#pragma once

#include "egraph/extraction.hpp"

namespace eqsat::egraph {

// Each class keeps the node whose cost set (the node plus the union of its
// children's cost sets, one entry per class) has the smallest total, as a
// fixpoint over a worklist; a node whose children's sets already contain its
// own class would close a cycle and is skipped. A heuristic: `optimal` is
// false. Throws ExtractionError if a root has no acyclic term.
Extraction extract_greedy_dag(const ExtractionProblem& problem);

}  // namespace eqsat::egraph
