#include "egraph/pattern.hpp"

#include "support/internal_error.hpp"

#include <algorithm>

namespace eqsat::egraph {

std::uint32_t Pattern::var(Symbol name) {
  auto it = std::find(vars_.begin(), vars_.end(), name);
  const auto index = static_cast<std::uint32_t>(it - vars_.begin());
  if (it == vars_.end()) vars_.push_back(name);
  ground_.push_back(false);
  ENodeOrVar node;
  node.is_var = true;
  node.var = index;
  return ast_.add_node(node, {});
}

std::uint32_t Pattern::payload_var(Symbol name) {
  auto it = std::find(payload_vars_.begin(), payload_vars_.end(), name);
  if (it != payload_vars_.end()) return static_cast<std::uint32_t>(it - payload_vars_.begin());
  payload_vars_.push_back(name);
  return static_cast<std::uint32_t>(payload_vars_.size() - 1);
}

std::uint32_t Pattern::op(Symbol op, PayloadMatch payload,
                          std::span<const std::uint32_t> children) {
  EQSAT_ASSERT(payload.kind != PayloadMatch::Kind::Var || payload.var < payload_vars_.size())
      << "Pattern::op: unknown payload variable index";
  ENodeOrVar node;
  node.op = op;
  node.payload = payload;
  const std::uint32_t i = ast_.add_node(node, children);
  bool ground = payload.kind == PayloadMatch::Kind::Exact;
  for (std::uint32_t c : children) ground = ground && ground_[c];
  ground_.push_back(ground);
  return i;
}

namespace {

bool is_var_name(std::string_view s) {
  return s.size() >= 2 && s[0] == '?';
}

// Adds the node an atom reads as: a variable, or an operator over
// `children` with an exact payload, any payload (`@_`) or a payload
// variable (`@?p`).
std::uint32_t add_node(Pattern& p, const SExpr& atom, std::span<const std::uint32_t> children,
                       bool is_leaf, const Syntax& syntax) {
  std::string_view text = atom.atom;
  if (text.starts_with('?')) {
    if (!is_leaf) atom.fail("a variable cannot be an operator");
    if (!is_var_name(text)) atom.fail("a variable needs a name after '?'");
    return p.var(text);
  }
  std::size_t at = text.rfind('@');
  if (at != std::string_view::npos && at > 0) {
    std::string_view suffix = text.substr(at + 1);
    if (suffix == "_" || is_var_name(suffix)) {
      SExpr head = atom;
      head.atom = std::string(text.substr(0, at));
      Head h = syntax.read(head, is_leaf);
      PayloadMatch m =
          suffix == "_" ? PayloadMatch::any() : PayloadMatch::bind(p.payload_var(suffix));
      return p.op(h.op, m, children);
    }
    if (suffix.starts_with('?')) atom.fail("bad payload variable in '" + atom.atom + "'");
  }
  Head h = syntax.read(atom, is_leaf);
  return p.op(h.op, PayloadMatch::exact(h.payload), children);
}

Pattern read_pattern(const SExpr& s, const Syntax& syntax) {
  Pattern p;
  read_rec_expr(s, [&](const SExpr& atom, std::span<const std::uint32_t> children, bool is_leaf) {
    return add_node(p, atom, children, is_leaf, syntax);
  });
  return p;
}

}  // namespace

Pattern Pattern::parse(std::string_view text, const Syntax& syntax) {
  return read_pattern(parse_sexpr(text), syntax);
}

std::string Pattern::to_string(const Syntax& syntax) const {
  if (empty()) return {};
  return ast_.print(root(), [&](const Node& n) -> std::string {
    if (n.is_var) return std::string(vars_[n.var].name());
    switch (n.payload.kind) {
      case PayloadMatch::Kind::Exact:
        return syntax.print(n.op, n.payload.value);
      case PayloadMatch::Kind::Any:
        return std::string(n.op.name()) + "@_";
      case PayloadMatch::Kind::Var:
        break;
    }
    return std::string(n.op.name()) + "@" + std::string(payload_vars_[n.payload.var].name());
  });
}

MultiPattern MultiPattern::parse(std::string_view text, const Syntax& syntax) {
  // Commas separate parts; as blanks they keep every column in place.
  std::string spaced(text);
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::vector<SExpr> items = parse_sexprs(spaced);
  MultiPattern m;
  for (std::size_t i = 0; i < items.size(); i += 3) {
    const SExpr& v = items[i];
    if (v.is_list || !is_var_name(v.atom)) v.fail("expected a variable to bind, as in ?a = (f ?x)");
    if (i + 2 >= items.size() || items[i + 1].is_list || items[i + 1].atom != "=") {
      v.fail("expected '= PATTERN' after " + v.atom);
    }
    Pattern p = read_pattern(items[i + 2], syntax);
    if (p.node(p.root()).is_var)
      items[i + 2].fail("a part of a multi-pattern must be an operator pattern");
    m.parts.emplace_back(Symbol(v.atom), std::move(p));
  }
  if (m.parts.empty()) throw ParseError(1, 1, "empty multi-pattern");
  return m;
}

std::string MultiPattern::to_string(const Syntax& syntax) const {
  std::string out;
  for (const auto& [v, p] : parts) {
    if (!out.empty()) out += ", ";
    out += v.name();
    out += " = ";
    out += p.to_string(syntax);
  }
  return out;
}

}  // namespace eqsat::egraph
