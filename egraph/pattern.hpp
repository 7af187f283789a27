// Pattern: a term with holes, a RecExpr of nodes-or-variables. A node is
// either an e-class variable (`?x`) or an operator applied to child
// patterns, with a constraint on the e-node's payload: an exact value, any
// value, or a payload variable that binds it (repeated payload variables
// must agree). Repeated e-class variables must bind the same e-class.
// Stored flat, children before parents, the root last; read and printed by
// RecExpr's reader and printer.
//
//   Pattern p = Pattern::parse("(f ?x (g ?x) c@7)");   // text
//   Pattern q;                                          // or built
//   auto x = q.var("?x");
//   auto ax = q.payload_var("?ax");
//   q.op(Symbol("softmax"), PayloadMatch::bind(ax), {x});  // (softmax@?ax ?x)
//
// MultiPattern: several patterns matched together, each rooted at a named
// variable, sharing variables: `?a = (f ?x), ?b = (g ?x)` finds every pair
// of classes holding f(x) and g(x) for the same x.
#pragma once

#include "egraph/id.hpp"
#include "egraph/rec_expr.hpp"
#include "egraph/symbol.hpp"
#include "egraph/syntax.hpp"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eqsat::egraph {

// The constraint of a pattern node on an e-node's payload.
struct PayloadMatch {
  enum class Kind : std::uint8_t { Exact, Any, Var };
  Kind kind = Kind::Exact;
  Payload value = 0;      // for Exact
  std::uint32_t var = 0;  // for Var: index into Pattern::payload_vars()

  static PayloadMatch exact(Payload v) { return {Kind::Exact, v, 0}; }
  static PayloadMatch any() { return {Kind::Any, 0, 0}; }
  static PayloadMatch bind(std::uint32_t var) { return {Kind::Var, 0, var}; }
  friend bool operator==(const PayloadMatch&, const PayloadMatch&) = default;
};

// A node of a pattern (egg's ENodeOrVar): an e-class variable, or an
// operator with a payload constraint applied to child patterns.
struct ENodeOrVar {
  bool is_var = false;
  std::uint32_t var = 0;  // for a variable: index into Pattern::vars()
  Symbol op;
  PayloadMatch payload;
  friend bool operator==(const ENodeOrVar&, const ENodeOrVar&) = default;
};

// The term of a pattern (egg's PatternAst).
using PatternAst = RecExprOf<ENodeOrVar>;

class Pattern {
 public:
  using Node = PatternAst::Node;

  // Appends a node for e-class variable `name` (a new one or a repeat);
  // returns its node index.
  std::uint32_t var(Symbol name);
  std::uint32_t var(std::string_view name) { return var(Symbol(name)); }
  // The index of payload variable `name` (added on first use).
  std::uint32_t payload_var(Symbol name);
  std::uint32_t payload_var(std::string_view name) { return payload_var(Symbol(name)); }
  // Appends an operator node over earlier node indices; returns its index.
  std::uint32_t op(Symbol op, PayloadMatch payload, std::span<const std::uint32_t> children);
  std::uint32_t op(Symbol op, PayloadMatch payload = {},
                   std::initializer_list<std::uint32_t> children = {}) {
    return this->op(op, payload, std::span<const std::uint32_t>(children.begin(), children.size()));
  }

  // Parses pattern text: `?x` is a variable, `NAME@?p` binds payload
  // variable ?p, `NAME@_` accepts any payload; other atoms go through
  // `syntax`. Throws ParseError.
  static Pattern parse(std::string_view text, const Syntax& syntax = Syntax::standard());

  const PatternAst& ast() const { return ast_; }
  std::size_t size() const { return ast_.size(); }
  bool empty() const { return ast_.empty(); }
  const Node& node(std::size_t i) const { return ast_.node(i); }
  std::span<const std::uint32_t> children(std::size_t i) const { return ast_.children(i); }
  std::uint32_t root() const { return ast_.root(); }
  // Whether node i's subterm has no variables of either kind and no `any`.
  bool is_ground(std::size_t i) const { return ground_[i]; }
  // E-class variables and payload variables, in order of first appearance.
  const std::vector<Symbol>& vars() const { return vars_; }
  const std::vector<Symbol>& payload_vars() const { return payload_vars_; }

  std::string to_string(const Syntax& syntax = Syntax::standard()) const;

 private:
  PatternAst ast_;
  std::vector<bool> ground_;
  std::vector<Symbol> vars_;
  std::vector<Symbol> payload_vars_;
};

struct MultiPattern {
  // Each part binds its root variable to the class its pattern matches.
  std::vector<std::pair<Symbol, Pattern>> parts;

  // Parses "?a = (f ?x), ?b = (g ?x)". Throws ParseError.
  static MultiPattern parse(std::string_view text, const Syntax& syntax = Syntax::standard());
  std::string to_string(const Syntax& syntax = Syntax::standard()) const;
};

}  // namespace eqsat::egraph
