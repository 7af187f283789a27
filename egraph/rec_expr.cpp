#include "egraph/rec_expr.hpp"

#include <stdexcept>

namespace eqsat::egraph {

std::uint32_t RecExpr::add(Symbol op, Payload payload, std::span<const std::uint32_t> children) {
  for (std::uint32_t c : children) {
    if (c >= nodes_.size()) throw std::invalid_argument("RecExpr::add: child index is not earlier");
  }
  Node n{op, payload, static_cast<std::uint32_t>(children_.size()),
         static_cast<std::uint32_t>(children.size())};
  children_.insert(children_.end(), children.begin(), children.end());
  nodes_.push_back(n);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

namespace {

std::uint32_t read_into(RecExpr& e, const SExpr& s, const Syntax& syntax) {
  if (!s.is_list) {
    Head h = syntax.read(s, true);
    return e.add(h.op, h.payload);
  }
  if (s.items.empty()) s.fail("empty list: expected (OPERATOR CHILD...)");
  if (s.items[0].is_list) s.items[0].fail("expected an operator, found a list");
  Head h = syntax.read(s.items[0], false);
  std::vector<std::uint32_t> children;
  for (std::size_t i = 1; i < s.items.size(); ++i) {
    children.push_back(read_into(e, s.items[i], syntax));
  }
  return e.add(h.op, h.payload, children);
}

void print_into(const RecExpr& e, std::uint32_t i, const Syntax& syntax, std::string& out) {
  const RecExpr::Node& n = e.node(i);
  if (n.arity == 0) {
    out += syntax.print(n.op, n.payload);
    return;
  }
  out += '(';
  out += syntax.print(n.op, n.payload);
  for (std::uint32_t c : e.children(i)) {
    out += ' ';
    print_into(e, c, syntax, out);
  }
  out += ')';
}

}  // namespace

RecExpr RecExpr::parse(std::string_view text, const Syntax& syntax) {
  RecExpr e;
  read_into(e, parse_sexpr(text), syntax);
  return e;
}

std::string RecExpr::to_string(const Syntax& syntax) const {
  std::string out;
  if (!nodes_.empty()) print_into(*this, root(), syntax, out);
  return out;
}

}  // namespace eqsat::egraph
