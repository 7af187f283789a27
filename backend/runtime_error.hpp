// Errors found while a graph runs: an index out of range, shapes that do
// not broadcast, a scan's :n-steps longer than its sequences, a reshape
// that does not fit, an input of the wrong shape or dtype. User errors
// (exit status 1), never crashes. Kernels throw them with a message that
// starts with the op's name; the executor prefixes the op's source
// position when the graph came from a file (`FILE:LINE:COL: error: ...`).
#pragma once

#include <stdexcept>
#include <string>

namespace eqsat::backend {

class RuntimeError : public std::runtime_error {
 public:
  explicit RuntimeError(const std::string& message, bool located = false)
      : std::runtime_error(message), located_(located) {}
  // True when the message already carries a source position.
  bool located() const { return located_; }

 private:
  bool located_ = false;
};

}  // namespace eqsat::backend
