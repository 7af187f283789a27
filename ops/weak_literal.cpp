#include "weak_literal.hpp"

#include <vector>

namespace eqsat::ops {

TermRef WeakLiteral::to_term(DType dtype) const {
  Array a(dtype, {});
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    a.data<T>()[0] = is_float ? static_cast<T>(float_value) : static_cast<T>(int_value);
  });
  return Term::constant(a);
}

namespace {

// The operands a literal at position i meets elementwise.
std::vector<std::size_t> peers_of(OpKind kind, std::size_t n, std::size_t i) {
  std::vector<std::size_t> all;
  for (std::size_t k = 0; k < n; ++k) all.push_back(k);
  switch (kind) {
    case OpKind::Where:
      if (i == 0) return {};
      return {1, 2};
    case OpKind::SetIndex:
    case OpKind::IncIndex:
      return i == 2 ? std::vector<std::size_t>{0, 2} : std::vector<std::size_t>{};
    case OpKind::SetSlice:
    case OpKind::IncSlice:
      return i == 1 ? std::vector<std::size_t>{0, 1} : std::vector<std::size_t>{};
    case OpKind::Dot:
    case OpKind::Concat:
    case OpKind::Stack:
      return all;
    default:
      break;
  }
  return is_elementwise(kind) ? all : std::vector<std::size_t>{};
}

}  // namespace

DType weak_literal_dtype(OpKind kind, const Attrs& attrs, std::span<const PendingOperand> operands,
                         std::size_t i) {
  const PendingOperand& self = operands[i];
  const DType own = self.float_literal ? DType::F64 : DType::I64;
  switch (kind) {
    case OpKind::Call: {
      const TermRef fn = operands[0].term;
      if (i == 0 || !fn || fn->kind() != OpKind::Fn) return own;
      const auto& params = fn->attrs().get<std::vector<TensorType>>(AttrKey::Params);
      if (i - 1 >= params.size()) return own;
      return promote(params[i - 1].dtype, false, own, true);
    }
    case OpKind::Full:
      if (const auto* d = attrs.find(AttrKey::Dtype); d && std::holds_alternative<DType>(*d))
        return promote(std::get<DType>(*d), false, own, true);
      return own;
    default:
      break;
  }
  std::optional<DType> strong;
  bool any_float = self.float_literal;
  for (std::size_t k : peers_of(kind, operands.size(), i)) {
    if (k >= operands.size()) continue;  // a wrong arity, reported by the type rule
    const PendingOperand& p = operands[k];
    if (!p.term) {
      any_float |= p.float_literal;
    } else if (!p.term->is_tuple()) {
      const DType d = p.term->tensor_type().dtype;
      strong = strong ? promote(*strong, d) : d;
    }
  }
  if (!strong) return any_float ? DType::F64 : DType::I64;
  return promote(*strong, false, own, true);
}

}  // namespace eqsat::ops
