#include "egraph/rec_expr.hpp"

namespace eqsat::egraph {

std::uint32_t read_rec_expr(
    const SExpr& s,
    const std::function<std::uint32_t(const SExpr& atom, std::span<const std::uint32_t> children,
                                      bool is_leaf)>& add) {
  if (!s.is_list) return add(s, {}, true);
  if (s.items.empty()) s.fail("empty list: expected (OPERATOR CHILD...)");
  const SExpr& head = s.items[0];
  if (head.is_list) head.fail("expected an operator, found a list");
  std::vector<std::uint32_t> children;
  for (std::size_t i = 1; i < s.items.size(); ++i)
    children.push_back(read_rec_expr(s.items[i], add));
  return add(head, children, false);
}

RecExpr RecExpr::parse(std::string_view text, const Syntax& syntax) {
  RecExpr e;
  read_rec_expr(parse_sexpr(text),
                [&](const SExpr& atom, std::span<const std::uint32_t> children, bool is_leaf) {
                  const Head h = syntax.read(atom, is_leaf);
                  return e.add(h.op, h.payload, children);
                });
  return e;
}

std::string RecExpr::to_string(const Syntax& syntax) const {
  if (empty()) return {};
  return print(root(), [&](const Node& n) { return syntax.print(n.op, n.payload); });
}

}  // namespace eqsat::egraph
