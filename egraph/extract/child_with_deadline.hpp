// Runs work in a forked child process under a hard deadline. A solver that
// does not check its own time limit everywhere (CBC in its root LP and
// preprocessing) still returns on time: the child is killed at the
// deadline and its answer is then lost.
#pragma once

#include <functional>
#include <optional>
#include <vector>

namespace eqsat::egraph {

// What the child's `work` returned, or nullopt when the child did not
// finish within `seconds` (it is then killed) or failed to report.
// `ran_here` is set when fork or pipe failed and `work` ran in this
// process instead (without a hard deadline).
std::optional<std::vector<char>> run_in_child(const std::function<std::vector<char>()>& work,
                                              double seconds, bool* ran_here = nullptr);

}  // namespace eqsat::egraph
