#include "rules/tensor/dim_symbols.hpp"

#include "ops/type_rules.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace eqsat::rules {

using ops::AttrKey;
using ops::OpKind;

namespace {

// A length no real array has: the k-th symbol of an op's operands.
constexpr std::int64_t kSymbolicLength = std::int64_t{1} << 40;

const ops::TensorType* tensor_of(const ops::Type* t) {
  return std::get_if<ops::TensorType>(t);
}

// The symbol of operand `x`'s axis `a`, when its type and symbols agree.
DimSymbol symbol_at(const std::vector<DimSymbol>& x, std::size_t a) {
  return a < x.size() ? x[a] : DimSymbol{};
}

}  // namespace

std::vector<DimSymbol> dim_symbols(ops::OpKind kind, const ops::Attrs& attrs,
                                   std::span<const std::vector<DimSymbol>* const> operands,
                                   std::span<const ops::Type* const> types,
                                   const ops::TensorType& result, std::uint64_t rep_id) {
  const std::size_t rank = result.dims.size();
  std::vector<DimSymbol> out(rank);
  const ops::TensorType* x =
      types.empty() ? nullptr : tensor_of(types[0]);  // operand 0, when a tensor
  const ops::OpGroup group = ops::op_info(kind).group;
  for (std::size_t a = 0; a < rank; ++a) {
    if (result.dims[a] != ops::kUnknownDim) continue;
    DimSymbol s;
    if (ops::is_elementwise(kind) || kind == OpKind::BroadcastLike) {
      // Aligned from the right; an axis of static length 1 broadcasts.
      bool agree = true;
      for (std::size_t i = 0; i < operands.size() && agree; ++i) {
        const ops::TensorType* t = tensor_of(types[i]);
        if (!t || t->dims.size() + a < rank) continue;  // the operand has no such axis
        const std::size_t b = a + t->dims.size() - rank;
        if (t->dims[b] == 1) continue;
        const DimSymbol o = symbol_at(*operands[i], b);
        if (!o.known() || (s.known() && !(s == o))) agree = false;
        s = o;
      }
      if (!agree) s = {};
    } else if (x && (group == ops::OpGroup::Softmax || kind == OpKind::Flip) &&
               x->dims.size() == rank) {
      s = symbol_at(*operands[0], a);
    } else if (x && x->dims.size() == rank &&
               (ops::op_info(kind).rule == &ops::type_rules::like_rule ||
                ops::op_info(kind).rule == &ops::type_rules::set_index_rule ||
                ops::op_info(kind).rule == &ops::type_rules::set_slice_rule)) {
      s = symbol_at(*operands[0], a);  // zeros_like, ones_like, writes: the operand's shape
    } else if (x && group == ops::OpGroup::Reduction && x->dims.size() == rank) {
      s = symbol_at(*operands[0], a);  // keepdims: a reduced axis has length 1
    } else if (x && kind == OpKind::Transpose) {
      const auto& perm = attrs.get<ops::IntList>(AttrKey::Perm);
      s = symbol_at(*operands[0], static_cast<std::size_t>(perm[a]));
    }
    out[a] = s.known() ? s : DimSymbol{rep_id + 1, static_cast<std::int64_t>(a)};
  }
  return out;
}

std::vector<ops::Type> with_symbolic_lengths(
    std::span<const std::vector<DimSymbol>* const> operands,
    std::span<const ops::Type* const> types) {
  std::map<std::pair<std::uint64_t, std::int64_t>, std::int64_t> lengths;
  std::vector<ops::Type> out;
  for (std::size_t i = 0; i < types.size(); ++i) {
    out.push_back(*types[i]);
    auto* t = std::get_if<ops::TensorType>(&out.back());
    if (!t) continue;
    for (std::size_t a = 0; a < t->dims.size(); ++a) {
      const DimSymbol s = symbol_at(*operands[i], a);
      if (t->dims[a] != ops::kUnknownDim || !s.known()) continue;
      const auto [it, fresh] = lengths.emplace(std::pair{s.term, s.axis},
                                               kSymbolicLength + std::int64_t(lengths.size()));
      t->dims[a] = it->second;
    }
  }
  return out;
}

}  // namespace eqsat::rules
