#include "egraph/syntax.hpp"

#include <charconv>

namespace eqsat::egraph {

Head Syntax::read(const SExpr& atom, bool is_leaf) const {
  if (parse_head) {
    if (std::optional<Head> h = parse_head(atom.atom, is_leaf)) return *h;
  }
  std::string_view text = atom.atom;
  std::size_t at = text.rfind('@');
  if (at == std::string_view::npos || at == 0) return Head{Symbol(text), 0};
  std::string_view digits = text.substr(at + 1);
  Payload value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    atom.fail("bad payload '" + std::string(digits) + "' in '" + atom.atom +
              "' (expected an unsigned integer)");
  }
  return Head{Symbol(text.substr(0, at)), value};
}

std::string Syntax::print(Symbol op, Payload payload) const {
  if (print_head) {
    if (std::optional<std::string> s = print_head(op, payload)) return *s;
  }
  std::string s(op.name());
  if (payload != 0) {
    s += '@';
    s += std::to_string(payload);
  }
  return s;
}

const Syntax& Syntax::standard() {
  static const Syntax s;
  return s;
}

}  // namespace eqsat::egraph
