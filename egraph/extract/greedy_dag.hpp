// DAG-aware greedy extraction (as extraction-gym's greedy-dag): a class pays
// for the union of the nodes below it, each shared node once.
#pragma once

#include "egraph/extract/extraction.hpp"

namespace eqsat::egraph {

// Each class takes the node whose cost set -- the node itself plus the union
// of its children's cost sets, one entry per class -- has the smallest
// total. Classes are resolved best-first by that total, so a node is scored
// once, after all its child classes are final, and no choice can close a
// cycle. The sets are persistent and shared (CostSets), so time and memory
// stay near-linear where copied sets grow quadratically (long chains, nodes
// with many children). A heuristic: `optimal` is false. Throws
// ExtractionError if a root has no acyclic term.
Extraction extract_greedy_dag(const ExtractionProblem& problem);

}  // namespace eqsat::egraph
