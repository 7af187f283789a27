#include "op.hpp"

#include "type_error.hpp"
#include "type_rules.hpp"

#include <fmt/format.h>

#include <array>
#include <initializer_list>

namespace eqsat::ops {

namespace {

constexpr std::uint32_t attr_mask(std::initializer_list<AttrKey> keys) {
  std::uint32_t mask = 0;
  for (AttrKey k : keys) mask |= 1u << static_cast<int>(k);
  return mask;
}

constexpr std::array<OpInfo, kNumOps> make_catalogue() {
  using enum AttrKey;  // the attribute keys and flags of op_list.hpp are written bare
  using namespace op_flags;
  return {
#define EQSAT_OP_INFO(id, name, group, lo, hi, cost, fusion, grad, sign, flags, rule, ...) \
  OpInfo{name,                                                                             \
         OpGroup::group,                                                                   \
         lo,                                                                               \
         hi,                                                                               \
         CostClass::cost,                                                                  \
         Fusion::fusion,                                                                   \
         Differentiability::grad,                                                          \
         SignRule::sign,                                                                   \
         static_cast<OpFlags>(flags),                                                      \
         &type_rules::rule,                                                                \
         attr_mask({__VA_ARGS__})},
      EQSAT_OPS(EQSAT_OP_INFO)
#undef EQSAT_OP_INFO
  };
}

constexpr std::array<OpInfo, kNumOps> kCatalogue = make_catalogue();

}  // namespace

std::optional<OpKind> folding_reduction(OpKind kind) {
#define EQSAT_FOLD_CASE(binary, reduction) \
  if (kind == OpKind::binary) return OpKind::reduction;
  EQSAT_FOLDS(EQSAT_FOLD_CASE)
#undef EQSAT_FOLD_CASE
  return std::nullopt;
}

std::vector<std::size_t> dtype_peers(OpKind kind, std::size_t arity, std::size_t i) {
  std::vector<std::size_t> peers;
  const auto add_range = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to; ++k) peers.push_back(k);
  };
  if (op_info(kind).group == OpGroup::Select) {
    if (i > 0) add_range(1, arity);  // the condition is bool; the values meet
  } else if (updates_first(kind)) {
    if (i == 0 || i + 1 == arity) peers = {0, arity - 1};  // the indices meet nothing
  } else if (is_elementwise(kind) || op_info(kind).has(op_flags::Promotes)) {
    add_range(0, arity);
  }
  return peers;
}

const OpInfo& op_info(OpKind kind) {
  return kCatalogue[static_cast<int>(kind)];
}

std::optional<OpKind> parse_op(std::string_view name) {
  for (int i = 0; i < kNumOps; ++i) {
    const OpInfo& info = kCatalogue[i];
    if (info.name == name && info.group != OpGroup::Leaf && static_cast<OpKind>(i) != OpKind::Fn)
      return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

Type check_op(OpKind kind, Attrs& attrs, std::span<const TermRef> operands) {
  const OpInfo& info = op_info(kind);
  const int n = static_cast<int>(operands.size());
  if (n < info.min_arity || (info.max_arity >= 0 && n > info.max_arity)) {
    if (info.min_arity == info.max_arity)
      throw TypeError(fmt::format("{} takes {} operand{}, got {}", info.name, info.min_arity,
                                  info.min_arity == 1 ? "" : "s", n));
    throw TypeError(fmt::format("{} takes at least {} operand{}, got {}", info.name, info.min_arity,
                                info.min_arity == 1 ? "" : "s", n));
  }
  for (const auto& [key, value] : attrs.entries())
    if (!info.accepts(key))
      throw TypeError(fmt::format("{} has no attribute :{}", info.name, attr_key_name(key)));
  Type type = info.rule(kind, attrs, operands);
  // No term may have a type whose size overflows: every size computed from
  // static shapes later on (memory plans, kernels, .npy headers) then fits.
  if (const auto* t = std::get_if<TensorType>(&type)) {
    require_addressable(*t, info.name);
  } else {
    for (const TensorType& e : std::get<TupleType>(type).elements)
      require_addressable(e, info.name);
  }
  return type;
}

}  // namespace eqsat::ops
