// Whether a scan's steps can run as independent blocks of rows. When every
// state, every sequence's step and every output has one leading axis whose
// rows the body never mixes (elementwise ops, products whose right operand
// is the same for every row, slices, reductions and softmax along other
// axes), rows [r0, r1) of the results depend only on rows [r0, r1) of the
// initial states and of the sequences' steps. The loop then runs as one
// loop per block of rows, each on its own thread with its own copy of the
// body, and no thread waits for another between steps (an LSTM's batch: by
// steps, each step waited twice for the other thread, after its product
// and after its cell). scan_runtime.cpp decides at run time whether it
// pays (docs/language.md, "Loops", says what results may differ).
#pragma once

#include "ops/term.hpp"

namespace eqsat::backend::detail {

// True when `scan`'s body keeps its rows apart as above: no mit-sot, no
// :until, no loop or call inside, each state and output at least a vector.
bool scan_rows_independent(ops::TermRef scan);

}  // namespace eqsat::backend::detail
