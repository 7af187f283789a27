// The error thrown when an op is applied to operands of the wrong type,
// shape or arity, or with a bad attribute. It carries only the message; the
// parser adds the source position (`FILE:LINE:COL: error: MESSAGE`).
#pragma once

#include <stdexcept>
#include <string>

namespace eqsat::ops {

class TypeError : public std::runtime_error {
 public:
  explicit TypeError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace eqsat::ops
