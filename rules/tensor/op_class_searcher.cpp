#include "rules/tensor/op_class_searcher.hpp"

#include "rules/tensor/op_symbols.hpp"

#include <algorithm>

namespace eqsat::rules {

using egraph::EClassId;

void OpClassSearcher::search(const egraph::EGraph& g, egraph::Matches& out,
                             std::size_t limit) const {
  out.layout = &layout_;
  std::vector<EClassId> found;
  for (ops::OpKind k : ops_)
    for (EClassId c : g.classes_with_op(op_symbol(k))) found.push_back(c);
  std::ranges::sort(found);
  found.erase(std::unique(found.begin(), found.end()), found.end());
  for (EClassId c : found) {
    if (out.size() >= limit) return;
    out.roots.push_back(c);
  }
}

void OpClassSearcher::search_eclass(const egraph::EGraph& g, EClassId c, egraph::Matches& out,
                                    std::size_t limit) const {
  out.layout = &layout_;
  for (egraph::ENodeId n : g.nodes(c)) {
    const auto k = op_of_symbol(g.op(n));
    if (k && std::ranges::find(ops_, *k) != ops_.end() && out.size() < limit) {
      out.roots.push_back(g.find(c));
      return;
    }
  }
}

}  // namespace eqsat::rules
