// Solving the ILP extractor's program with CBC: in this process under CBC's
// own (soft) time limit, or in a child process (child_with_deadline.hpp)
// killed at a hard deadline, its answer sent back through a pipe.
#pragma once

#include "egraph/extract/ilp_model.hpp"

#include <cstdint>
#include <vector>

namespace eqsat::egraph::ilp {

// CBC's answer: the node columns at 1 in its incumbent.
struct CbcResult {
  bool found = false;   // an incumbent exists
  bool proven = false;  // and it is proven optimal
  std::vector<std::int32_t> node_columns;
};

// Runs CBC here with its own time limit of `seconds`, which CBC does not
// check everywhere. `start` (may be empty) lists the columns at 1 in a
// feasible solution, given to CBC as its first incumbent (a MIP start), so
// that an answer is never worse than it.
CbcResult run_cbc(const Program& program, const std::vector<int>& start, double seconds);

// As run_cbc, in a child process killed at `seconds`: CBC gets 80% of the
// time (it overshoots its limit by up to a second on big programs). A child
// killed or failing gives `found = false`; if no child can be started, CBC
// runs here.
CbcResult run_cbc_with_deadline(const Program& program, const std::vector<int>& start,
                                double seconds);

}  // namespace eqsat::egraph::ilp
