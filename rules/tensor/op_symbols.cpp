#include "rules/tensor/op_symbols.hpp"

#include <array>
#include <vector>

namespace eqsat::rules {

namespace {

struct Table {
  std::array<egraph::Symbol, ops::kNumOps> symbols;
  std::vector<int> kind_by_id;  // symbol id -> op index, -1 when none

  Table() {
    for (int i = 0; i < ops::kNumOps; ++i) {
      symbols[i] = egraph::Symbol(ops::op_name(static_cast<ops::OpKind>(i)));
      const auto id = symbols[i].id();
      if (kind_by_id.size() <= id) kind_by_id.resize(id + 1, -1);
      kind_by_id[id] = i;
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

egraph::Symbol op_symbol(ops::OpKind kind) {
  return table().symbols[static_cast<int>(kind)];
}

std::optional<ops::OpKind> op_of_symbol(egraph::Symbol s) {
  const auto& ids = table().kind_by_id;
  if (s.id() >= ids.size() || ids[s.id()] < 0) return std::nullopt;
  return static_cast<ops::OpKind>(ids[s.id()]);
}

}  // namespace eqsat::rules
