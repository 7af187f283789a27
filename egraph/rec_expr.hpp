// RecExpr: a term as a flat array of nodes, each child referring to an
// earlier node by index, the root last (egg's RecExpr). Used to load terms
// into an e-graph (`EGraph::add_expr`) and to print extracted terms.
//
//   RecExpr e;
//   auto x = e.add(Symbol("x"));
//   e.add(Symbol("f"), 0, {x, x});        // (f x x)
//   RecExpr g = RecExpr::parse("(f x x)");
#pragma once

#include "egraph/id.hpp"
#include "egraph/symbol.hpp"
#include "egraph/syntax.hpp"

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::egraph {

class RecExpr {
 public:
  struct Node {
    Symbol op;
    Payload payload = 0;
    std::uint32_t first_child = 0;
    std::uint32_t arity = 0;
  };

  // Appends a node whose children are earlier indices; returns its index.
  // Throws std::invalid_argument if a child index is not earlier.
  std::uint32_t add(Symbol op, Payload payload = 0, std::span<const std::uint32_t> children = {});
  std::uint32_t add(Symbol op, Payload payload, std::initializer_list<std::uint32_t> children) {
    return add(op, payload, std::span<const std::uint32_t>(children.begin(), children.size()));
  }

  std::size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  const Node& node(std::size_t i) const { return nodes_[i]; }
  std::span<const std::uint32_t> children(std::size_t i) const {
    return {children_.data() + nodes_[i].first_child, nodes_[i].arity};
  }
  // Index of the root (the last node); the expression must not be empty.
  std::uint32_t root() const { return static_cast<std::uint32_t>(nodes_.size() - 1); }

  // Parses an s-expression; atoms and heads go through `syntax`.
  // Throws ParseError.
  static RecExpr parse(std::string_view text, const Syntax& syntax = Syntax::standard());
  std::string to_string(const Syntax& syntax = Syntax::standard()) const;

  friend bool operator==(const RecExpr&, const RecExpr&) = default;

 private:
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> children_;
};

inline bool operator==(const RecExpr::Node& a, const RecExpr::Node& b) {
  return a.op == b.op && a.payload == b.payload && a.first_child == b.first_child &&
         a.arity == b.arity;
}

}  // namespace eqsat::egraph
