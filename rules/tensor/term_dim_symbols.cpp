#include "rules/tensor/term_dim_symbols.hpp"

#include "ops/post_order.hpp"

#include <unordered_map>

namespace eqsat::rules {

namespace {

// Per thread, by term (node-based: the operands' vectors are read by
// address while new entries go in).
std::unordered_map<ops::TermRef, std::vector<DimSymbol>>& symbol_cache() {
  thread_local std::unordered_map<ops::TermRef, std::vector<DimSymbol>> cache;
  return cache;
}

}  // namespace

const std::vector<DimSymbol>& term_dim_symbols(ops::TermRef t) {
  auto& cache = symbol_cache();
  if (auto it = cache.find(t); it != cache.end()) return it->second;
  const ops::TermRef roots[] = {t};
  ops::for_each_post_order(
      roots, ops::Bodies::Skip,
      [&](ops::TermRef u) {
        if (cache.contains(u)) return;
        std::vector<DimSymbol> symbols;
        if (!u->is_tuple()) {
          std::vector<const std::vector<DimSymbol>*> operands;
          std::vector<const ops::Type*> types;
          for (ops::TermRef o : u->operands()) {
            operands.push_back(&cache.at(o));
            types.push_back(&o->type());
          }
          symbols = dim_symbols(u->kind(), u->attrs(), operands, types, u->tensor_type(), u->id());
        }
        cache.emplace(u, std::move(symbols));
      },
      [&](ops::TermRef u) { return !cache.contains(u); });
  return cache.at(t);
}

bool same_length(ops::TermRef x, std::int64_t a, ops::TermRef y, std::int64_t b) {
  const auto& dx = x->tensor_type().dims;
  const auto& dy = y->tensor_type().dims;
  const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
  if (dx[ia] != ops::kUnknownDim || dy[ib] != ops::kUnknownDim) return dx[ia] == dy[ib];
  const std::vector<DimSymbol>& sx = term_dim_symbols(x);
  const std::vector<DimSymbol>& sy = term_dim_symbols(y);
  return ia < sx.size() && ib < sy.size() && sx[ia].known() && sx[ia] == sy[ib];
}

}  // namespace eqsat::rules
