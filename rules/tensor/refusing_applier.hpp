// The interface of an applier that may refuse a match, so that the optimize
// report can count refusals per rule without knowing the applier.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace eqsat::rules {

// Implemented by a built-in applier that may refuse a match (leaving the
// e-graph as it was): the optimize report counts its refusals as the rule's
// `refused`, and `errors()` says why, one message per refusal.
class RefusingApplier {
 public:
  virtual ~RefusingApplier() = default;
  virtual std::size_t refused() const = 0;
  virtual const std::vector<std::string>& errors() const = 0;
};

}  // namespace eqsat::rules
