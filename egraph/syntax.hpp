// Syntax: how the atoms of s-expressions map to e-node heads (operator and
// payload) and back, so that terms and patterns of any language can be
// written as text. The standard syntax reads `NAME` as operator NAME with
// payload 0 and `NAME@N` as operator NAME with payload N (an unsigned
// integer); in patterns `NAME@?p` binds payload variable ?p and `NAME@_`
// matches any payload. A language overrides `parse_head` / `print_head`
// (the math benchmark reads numbers as `num` nodes whose payload is the
// value's bits).
#pragma once

#include "egraph/id.hpp"
#include "egraph/sexpr.hpp"
#include "egraph/symbol.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace eqsat::egraph {

// An e-node without its children: what a RecExpr node holds.
struct Head {
  Symbol op;
  Payload payload = 0;
  friend bool operator==(const Head&, const Head&) = default;
};

struct Syntax {
  // Reads an atom in operator position (`is_leaf` false) or as a leaf.
  // Returns nullopt to fall back to the standard reading.
  std::function<std::optional<Head>(std::string_view atom, bool is_leaf)> parse_head;
  // Prints a head; returns nullopt to fall back to the standard printing.
  std::function<std::optional<std::string>(Symbol op, Payload payload)> print_head;

  Head read(const SExpr& atom, bool is_leaf) const;
  std::string print(Symbol op, Payload payload) const;

  static const Syntax& standard();
};

}  // namespace eqsat::egraph
