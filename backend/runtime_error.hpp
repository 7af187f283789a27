// Errors found while a graph runs: an index out of range, shapes that do
// not broadcast, a scan's :n-steps longer than its sequences, a reshape
// that does not fit, a bad .npy file. User errors (exit status 1), never
// crashes. The executor adds the op's name and source position.
#pragma once

#include <stdexcept>
#include <string>

namespace eqsat::backend {

class RuntimeError : public std::runtime_error {
 public:
  explicit RuntimeError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace eqsat::backend
