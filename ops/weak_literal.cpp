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
  for (std::size_t k : dtype_peers(kind, operands.size(), i)) {
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
