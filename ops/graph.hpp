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

// A program as read from a `.eg` file (ops/graph_parser.hpp) or built in C++.
//
// - `inputs` are Input terms (their name and type are the term's attributes).
// - `outputs` are tensor-valued terms; an output written without a name is
//   called `out<K>`, K its position among all outputs.
// - `defs` are the `fn` terms written with `def`, in definition order. A
//   def written `:inline false` has that attribute on its `fn` term, so it
//   is a different term from the same body without it. Two defs with
//   alpha-equivalent bodies share one `fn` term under two names.
// - `locations` maps a term to where it was first written (for run-time
//   errors); terms built in C++ may have none.
//
// Two graphs are equal when their inputs, outputs and defs are the same
// terms under the same names; locations do not take part.
struct Graph {
  std::vector<TermRef> inputs;
  std::vector<NamedTerm> outputs;
  std::vector<NamedTerm> defs;
  std::unordered_map<TermRef, SourceLocation> locations;

  // The name a `fn` term was first defined under, or nullptr for a scan body.
  const std::string* def_name(TermRef fn) const {
    for (const auto& d : defs)
      if (d.term == fn) return &d.name;
    return nullptr;
  }
  // Where `t` was first written, or nullptr.
  const SourceLocation* location(TermRef t) const {
    auto it = locations.find(t);
    return it == locations.end() ? nullptr : &it->second;
  }

  friend bool operator==(const Graph& a, const Graph& b) {
    return a.inputs == b.inputs && a.outputs == b.outputs && a.defs == b.defs;
  }
};

}  // namespace eqsat::ops
