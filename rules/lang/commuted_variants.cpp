#include "rules/lang/commuted_variants.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace eqsat::rules {

using ast::Pattern;

namespace {

// Whether two patterns are written alike (what ast::to_string prints, with
// no text built): positions aside, numbers by their bits.
bool written_alike(const Pattern& a, const Pattern& b) {
  if (a.kind != b.kind || a.var != b.var || a.is_float != b.is_float || a.op != b.op ||
      std::bit_cast<std::uint64_t>(a.number) != std::bit_cast<std::uint64_t>(b.number) ||
      a.children.size() != b.children.size() || a.attrs.size() != b.attrs.size())
    return false;
  for (std::size_t i = 0; i < a.attrs.size(); ++i) {
    const ast::AttrPattern& x = a.attrs[i];
    const ast::AttrPattern& y = b.attrs[i];
    if (x.key != y.key || x.var != y.var ||
        (!x.is_var() && !ops::attr_value_equal(x.value, y.value)))
      return false;
  }
  for (std::size_t i = 0; i < a.children.size(); ++i)
    if (!written_alike(a.children[i], b.children[i])) return false;
  return true;
}

// Whether `p` has a node of a commutative op with two operands.
bool has_commutative(const Pattern& p) {
  return p.is_op() && ((ops::is_commutative(p.op) && p.children.size() == 2) ||
                       std::ranges::any_of(p.children, has_commutative));
}

}  // namespace

// Operands without a commutative node are left as they are rather than
// copied once per variant (they were most of a small optimization's
// lowering).
std::vector<Pattern> commuted_variants(const Pattern& p) {
  if (!has_commutative(p)) return {p};
  std::vector<Pattern> out{p};
  for (std::size_t i = 0; i < p.children.size(); ++i) {
    if (!has_commutative(p.children[i])) continue;
    std::vector<Pattern> next;
    for (const Pattern& base : out)
      for (const Pattern& c : commuted_variants(p.children[i])) {
        Pattern v = base;
        v.children[i] = c;
        next.push_back(std::move(v));
      }
    out = std::move(next);
  }
  if (ops::is_commutative(p.op) && p.children.size() == 2) {
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
      Pattern v = out[i];
      std::swap(v.children[0], v.children[1]);
      out.push_back(std::move(v));
    }
  }
  std::vector<Pattern> distinct;
  for (Pattern& v : out)
    if (std::ranges::none_of(distinct, [&](const Pattern& d) { return written_alike(d, v); }))
      distinct.push_back(std::move(v));
  return distinct;
}

}  // namespace eqsat::rules
