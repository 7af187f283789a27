// Ops of the tensor language: the OpKind enum and the catalogue entry of
// each kind (name, group, arity, accepted attributes, type rule), all derived
// from the single declaration in op_list.hpp.
#pragma once

#include "attrs.hpp"
#include "op_list.hpp"
#include "type.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace eqsat::ops {

class Term;
using TermRef = const Term*;

enum class OpKind : std::uint8_t {
#define EQSAT_OP_ENUM(id, name, group, lo, hi, rule, ...) id,
  EQSAT_OPS(EQSAT_OP_ENUM)
#undef EQSAT_OP_ENUM
};

inline constexpr int kNumOps = 0
#define EQSAT_OP_COUNT(...) +1
    EQSAT_OPS(EQSAT_OP_COUNT)
#undef EQSAT_OP_COUNT
    ;

enum class OpGroup : std::uint8_t {
  Leaf,
  Unary,
  Binary,
  Select,
  Reduction,
  Softmax,
  LinAlg,
  Shape,
  Indexing,
  Creation,
  Control,
  Gradient
};

// A type rule checks the operands and attributes of one application, puts
// the attributes in canonical form (axes normalized, defaults filled in, so
// that equal applications intern to one term) and returns the result type.
// It throws TypeError with a message naming the op.
using TypeRule = Type (*)(OpKind kind, Attrs& attrs, std::span<const TermRef> operands);

// One entry of the catalogue.
struct OpInfo {
  std::string_view name;
  OpGroup group;
  int min_arity;
  int max_arity;  // -1: any number
  TypeRule rule;
  std::uint32_t attr_mask;  // bit k set: AttrKey k accepted

  bool accepts(AttrKey key) const { return attr_mask >> static_cast<int>(key) & 1u; }
};

const OpInfo& op_info(OpKind kind);
inline std::string_view op_name(OpKind kind) {
  return op_info(kind).name;
}

// The op written `name` in graph files; leaves and `fn` are not written as
// ops and are not found.
std::optional<OpKind> parse_op(std::string_view name);

// Checks arity and attribute keys, then applies the op's type rule.
Type check_op(OpKind kind, Attrs& attrs, std::span<const TermRef> operands);

inline bool is_elementwise(OpKind kind) {
  const OpGroup g = op_info(kind).group;
  return g == OpGroup::Unary || g == OpGroup::Binary || g == OpGroup::Select;
}

// f(a, b) = f(b, a) for every value (the rule language's `:comm` swaps
// the operands of these ops on a left side).
inline bool is_commutative(OpKind kind) {
  switch (kind) {
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Maximum:
    case OpKind::Minimum:
    case OpKind::Logaddexp:
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::LogicalAnd:
    case OpKind::LogicalOr:
      return true;
    default:
      return false;
  }
}

}  // namespace eqsat::ops
