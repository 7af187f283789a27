#include "egraph/pattern.hpp"

#include <algorithm>
#include <stdexcept>

namespace eqsat::egraph {

std::uint32_t Pattern::var(Symbol name) {
  auto it = std::find(vars_.begin(), vars_.end(), name);
  Node n;
  n.is_var = true;
  n.var = static_cast<std::uint32_t>(it - vars_.begin());
  if (it == vars_.end()) vars_.push_back(name);
  nodes_.push_back(n);
  ground_.push_back(false);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

std::uint32_t Pattern::payload_var(Symbol name) {
  auto it = std::find(payload_vars_.begin(), payload_vars_.end(), name);
  if (it != payload_vars_.end()) return static_cast<std::uint32_t>(it - payload_vars_.begin());
  payload_vars_.push_back(name);
  return static_cast<std::uint32_t>(payload_vars_.size() - 1);
}

std::uint32_t Pattern::op(Symbol op, PayloadMatch payload,
                          std::span<const std::uint32_t> children) {
  bool ground = payload.kind == PayloadMatch::Kind::Exact;
  for (std::uint32_t c : children) {
    if (c >= nodes_.size()) throw std::invalid_argument("Pattern::op: child index is not earlier");
    ground = ground && ground_[c];
  }
  if (payload.kind == PayloadMatch::Kind::Var && payload.var >= payload_vars_.size()) {
    throw std::invalid_argument("Pattern::op: unknown payload variable index");
  }
  Node n;
  n.op = op;
  n.payload = payload;
  n.first_child = static_cast<std::uint32_t>(children_.size());
  n.arity = static_cast<std::uint32_t>(children.size());
  children_.insert(children_.end(), children.begin(), children.end());
  nodes_.push_back(n);
  ground_.push_back(ground);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

namespace {

bool is_var_name(std::string_view s) {
  return s.size() >= 2 && s[0] == '?';
}

std::uint32_t read_head(Pattern& p, const SExpr& atom, const Syntax& syntax,
                        std::span<const std::uint32_t> children, bool is_leaf) {
  std::string_view text = atom.atom;
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

std::uint32_t read_into(Pattern& p, const SExpr& s, const Syntax& syntax) {
  if (!s.is_list) {
    if (s.atom.starts_with('?')) {
      if (!is_var_name(s.atom)) s.fail("a variable needs a name after '?'");
      return p.var(s.atom);
    }
    return read_head(p, s, syntax, {}, true);
  }
  if (s.items.empty()) s.fail("empty list: expected (OPERATOR CHILD...)");
  const SExpr& head = s.items[0];
  if (head.is_list) head.fail("expected an operator, found a list");
  if (head.atom.starts_with('?')) head.fail("a variable cannot be an operator");
  std::vector<std::uint32_t> children;
  for (std::size_t i = 1; i < s.items.size(); ++i)
    children.push_back(read_into(p, s.items[i], syntax));
  return read_head(p, head, syntax, children, false);
}

void print_head(const Pattern::Node& n, const Pattern& p, const Syntax& syntax, std::string& out) {
  switch (n.payload.kind) {
    case PayloadMatch::Kind::Exact:
      out += syntax.print(n.op, n.payload.value);
      break;
    case PayloadMatch::Kind::Any:
      out += n.op.name();
      out += "@_";
      break;
    case PayloadMatch::Kind::Var:
      out += n.op.name();
      out += '@';
      out += p.payload_vars()[n.payload.var].name();
      break;
  }
}

void print_into(const Pattern& p, std::uint32_t i, const Syntax& syntax, std::string& out) {
  const Pattern::Node& n = p.node(i);
  if (n.is_var) {
    out += p.vars()[n.var].name();
    return;
  }
  if (n.arity == 0) {
    print_head(n, p, syntax, out);
    return;
  }
  out += '(';
  print_head(n, p, syntax, out);
  for (std::uint32_t c : p.children(i)) {
    out += ' ';
    print_into(p, c, syntax, out);
  }
  out += ')';
}

}  // namespace

Pattern Pattern::parse(std::string_view text, const Syntax& syntax) {
  Pattern p;
  read_into(p, parse_sexpr(text), syntax);
  return p;
}

std::string Pattern::to_string(const Syntax& syntax) const {
  std::string out;
  if (!nodes_.empty()) print_into(*this, root(), syntax, out);
  return out;
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
    Pattern p;
    read_into(p, items[i + 2], syntax);
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
