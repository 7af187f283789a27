#include "rules/tensor/op_class_searcher.hpp"

#include "rules/tensor/op_symbols.hpp"

#include <algorithm>

namespace eqsat::rules {

using egraph::EClassId;

bool OpClassSearcher::may_act(const egraph::EGraph& g) const {
  return needs_.empty() || std::ranges::any_of(needs_, [&](ops::OpKind k) {
           return !g.classes_with_op(op_symbol(k)).empty();
         });
}

void OpClassSearcher::search(const egraph::EGraph& g, egraph::Matches& out,
                             std::size_t limit) const {
  out.layout = &layout_;
  if (!may_act(g)) return;
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
  if (!may_act(g)) return;
  for (egraph::ENodeId n : g.nodes(c)) {
    const auto k = op_of_symbol(g.op(n));
    if (k && std::ranges::find(ops_, *k) != ops_.end() && out.size() < limit) {
      out.roots.push_back(g.find(c));
      return;
    }
  }
}

}  // namespace eqsat::rules
