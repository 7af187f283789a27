// RecExpr: a term as a flat array of nodes, each child referring to an
// earlier node by index, the root last (egg's RecExpr). `RecExprOf<N>`
// holds nodes of any kind N: `RecExpr` holds e-node heads (operator and
// payload) and is what loads terms into an e-graph (`EGraph::add_expr`) and
// what extraction prints; a `Pattern` holds nodes-or-variables
// (`PatternAst`, egg's `RecExpr<ENodeOrVar>`). Both are read from and
// printed as s-expressions by the one reader and printer here.
//
//   RecExpr e;
//   auto x = e.add(Symbol("x"));
//   e.add(Symbol("f"), 0, {x, x});        // (f x x)
//   RecExpr g = RecExpr::parse("(f x x)");
#pragma once

#include "egraph/id.hpp"
#include "egraph/symbol.hpp"
#include "egraph/syntax.hpp"
#include "support/internal_error.hpp"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::egraph {

template <class N>
class RecExprOf {
 public:
  // A node: its own fields (N's) and where its children are.
  struct Node : N {
    std::uint32_t first_child = 0;
    std::uint32_t arity = 0;
    friend bool operator==(const Node&, const Node&) = default;
  };

  // Appends a node whose children are earlier indices; returns its index.
  // A child index that is not earlier is an InternalError (EQSAT_ASSERT).
  std::uint32_t add_node(const N& head, std::span<const std::uint32_t> children) {
    for (std::uint32_t c : children)
      EQSAT_ASSERT(c < nodes_.size()) << "RecExpr: child index " << c << " is not earlier";
    Node n{head, static_cast<std::uint32_t>(children_.size()),
           static_cast<std::uint32_t>(children.size())};
    children_.insert(children_.end(), children.begin(), children.end());
    nodes_.push_back(n);
    return static_cast<std::uint32_t>(nodes_.size() - 1);
  }

  std::size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  const Node& node(std::size_t i) const { return nodes_[i]; }
  std::span<const std::uint32_t> children(std::size_t i) const {
    return {children_.data() + nodes_[i].first_child, nodes_[i].arity};
  }
  // Index of the root (the last node); the expression must not be empty.
  std::uint32_t root() const { return static_cast<std::uint32_t>(nodes_.size() - 1); }

  // The s-expression of node i: `head(i)` for a node without children,
  // `(head(i) CHILD...)` otherwise.
  std::string print(std::uint32_t i, const std::function<std::string(const Node&)>& head) const {
    std::string out;
    print_into(i, head, out);
    return out;
  }

  friend bool operator==(const RecExprOf&, const RecExprOf&) = default;

 private:
  void print_into(std::uint32_t i, const std::function<std::string(const Node&)>& head,
                  std::string& out) const {
    const Node& n = nodes_[i];
    if (n.arity == 0) {
      out += head(n);
      return;
    }
    out += '(';
    out += head(n);
    for (std::uint32_t c : children(i)) {
      out += ' ';
      print_into(c, head, out);
    }
    out += ')';
  }

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> children_;
};

// Reads `s` bottom-up, children before parents: calls `add(atom, children,
// is_leaf)` for each node, with the head atom of a list (after its
// children) or an atom standing alone (`is_leaf`, no children); `add`
// appends the node and returns its index. Rejects an empty list and a list
// in operator position (ParseError).
std::uint32_t read_rec_expr(
    const SExpr& s,
    const std::function<std::uint32_t(const SExpr& atom, std::span<const std::uint32_t> children,
                                      bool is_leaf)>& add);

class RecExpr : public RecExprOf<Head> {
 public:
  std::uint32_t add(Symbol op, Payload payload = 0, std::span<const std::uint32_t> children = {}) {
    return add_node(Head{op, payload}, children);
  }
  std::uint32_t add(Symbol op, Payload payload, std::initializer_list<std::uint32_t> children) {
    return add(op, payload, std::span<const std::uint32_t>(children.begin(), children.size()));
  }

  // Parses an s-expression; atoms and heads go through `syntax`.
  // Throws ParseError.
  static RecExpr parse(std::string_view text, const Syntax& syntax = Syntax::standard());
  std::string to_string(const Syntax& syntax = Syntax::standard()) const;
};

}  // namespace eqsat::egraph
