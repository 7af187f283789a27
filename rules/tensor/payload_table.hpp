// Interns the attribute sets of tensor ops into the opaque e-node payloads
// of the e-graph: equal (canonical) attributes get the same Payload, so two
// applications of one op to the same e-classes are one e-node. Ids follow
// first-interning order (deterministic).
#pragma once

#include "egraph/id.hpp"
#include "ops/attrs.hpp"

#include <deque>
#include <unordered_map>
#include <vector>

namespace eqsat::rules {

class PayloadTable {
 public:
  // The payload of `attrs` (canonical attributes, as a Term holds them).
  egraph::Payload intern(const ops::Attrs& attrs);
  const ops::Attrs& attrs(egraph::Payload p) const { return attrs_[p]; }
  std::size_t size() const { return attrs_.size(); }

 private:
  std::deque<ops::Attrs> attrs_;  // stable addresses
  std::unordered_map<std::size_t, std::vector<egraph::Payload>> by_hash_;
};

}  // namespace eqsat::rules
