// Symbol: an interned name (operator names, pattern variable names). The
// table is process-wide and append-only, so a Symbol is a 32-bit handle that
// compares in O(1); ids follow first-interning order (deterministic for a
// deterministic program). Not thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <string_view>

namespace eqsat::egraph {

class Symbol {
 public:
  Symbol() = default;
  // The symbol for `name`, interning it on first use.
  explicit Symbol(std::string_view name);

  std::string_view name() const;
  std::uint32_t id() const { return id_; }
  bool valid() const { return id_ != 0; }

  friend auto operator<=>(Symbol, Symbol) = default;

  // The symbol with this id (as returned by `id()`).
  static Symbol from_id(std::uint32_t id);
  // The same without the range check, for ids read back from an e-graph.
  static Symbol from_id_unchecked(std::uint32_t id) {
    Symbol s;
    s.id_ = id;
    return s;
  }

 private:
  std::uint32_t id_ = 0;  // 0 is the empty, invalid symbol
};

}  // namespace eqsat::egraph

template <>
struct std::hash<eqsat::egraph::Symbol> {
  std::size_t operator()(eqsat::egraph::Symbol s) const noexcept {
    return std::hash<std::uint32_t>{}(s.id());
  }
};
