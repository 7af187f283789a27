// FormMemo: what a scan applier computed for one loop form, kept so that
// the next iteration does not compute it again. The scan appliers run on
// every loop every iteration, and rebuilding a body is most of their cost.
#pragma once

#include "rules/loops/scan_view.hpp"

#include "egraph/id.hpp"
#include "ops/term.hpp"

#include <map>
#include <utility>
#include <vector>

namespace eqsat::rules {

// Values per loop form and `Key` (e.g. the outputs wanted). A form is the
// scan e-node with its body's representative and its canonical operands:
// a new form of the body, or an operand class merged into another, is a
// new form and computes the value again. Class ids inside a remembered
// value may have been merged since: callers canonicalize them.
template <class Key, class Value>
class FormMemo {
 public:
  // The value for loop `s` and `key`: compute() on a form not seen yet.
  template <class Compute>
  Value& get(const ScanView& s, const Key& key, Compute&& compute) {
    Entry& e = memo_[{s.node, key}];
    if (!e.fn || e.fn != s.fn || e.operands != s.operands)
      e = Entry{s.fn, s.operands, std::forward<Compute>(compute)()};
    return e.value;
  }

 private:
  struct Entry {
    ops::TermRef fn = nullptr;
    std::vector<egraph::EClassId> operands;
    Value value;
  };
  std::map<std::pair<egraph::ENodeId, Key>, Entry> memo_;
};

}  // namespace eqsat::rules
