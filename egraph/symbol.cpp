#include "egraph/symbol.hpp"

#include "support/internal_error.hpp"

#include <absl/container/flat_hash_map.h>

#include <deque>
#include <string>
#include <vector>

namespace eqsat::egraph {
namespace {

struct SymbolTable {
  std::deque<std::string> names{std::string()};  // stable storage; id 0 is ""
  absl::flat_hash_map<std::string_view, std::uint32_t> ids{{std::string_view(), 0}};
};

SymbolTable& table() {
  static SymbolTable t;
  return t;
}

}  // namespace

Symbol::Symbol(std::string_view name) {
  SymbolTable& t = table();
  if (auto it = t.ids.find(name); it != t.ids.end()) {
    id_ = it->second;
    return;
  }
  id_ = static_cast<std::uint32_t>(t.names.size());
  t.names.emplace_back(name);
  t.ids.emplace(t.names.back(), id_);
}

std::string_view Symbol::name() const {
  return table().names[id_];
}

Symbol Symbol::from_id(std::uint32_t id) {
  EQSAT_ASSERT(id < table().names.size()) << "Symbol::from_id: unknown symbol id " << id;
  Symbol s;
  s.id_ = id;
  return s;
}

}  // namespace eqsat::egraph
