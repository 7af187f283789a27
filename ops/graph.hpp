// Graph: a whole program of the tensor language — its inputs in positional
// order, its named outputs and the named sub-graphs (`def`s) it defines.
// The values themselves are hash-consed Terms; names are only for reading.
#pragma once

#include "diagnostic.hpp"
#include "term.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace eqsat::ops {

// A named value of a graph.
struct NamedTerm {
  std::string name;
  TermRef term = nullptr;
  friend bool operator==(const NamedTerm&, const NamedTerm&) = default;
};

struct Graph {
  std::vector<TermRef> inputs;     // Input terms, in positional order
  std::vector<NamedTerm> outputs;  // unnamed outputs are called out0, out1, ...
  std::vector<NamedTerm> defs;     // def name -> its `fn` term, in definition order
  // Where each term was first written, for run-time error messages.
  std::unordered_map<TermRef, SourceLocation> locations;

  // The name a `fn` term was defined under, or nullptr for a scan body.
  const std::string* def_name(TermRef fn) const {
    for (const auto& d : defs)
      if (d.term == fn) return &d.name;
    return nullptr;
  }
};

}  // namespace eqsat::ops
