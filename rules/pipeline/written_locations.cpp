#include "rules/pipeline/written_locations.hpp"

#include "rules/tensor/op_symbols.hpp"

#include "ops/post_order.hpp"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <tuple>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;
using ops::SourceLocation;
using ops::TermRef;

WrittenLocations::WrittenLocations(TensorEGraph& g, const ops::Graph& graph)
    : g_(g), graph_(graph) {
  std::vector<TermRef> roots;
  for (const auto& o : graph.outputs) roots.push_back(o.term);
  for (const auto& d : graph.defs) roots.push_back(d.term);
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](TermRef t) {
    if (const SourceLocation* where = graph.location(t))
      // Loaded already: a look-up.
      by_class_[g.egraph().find(g.add_term(t))].push_back({t->kind(), *where});
  });
  // The first position in the file first (deterministic, unlike the map's order).
  for (auto& [c, written] : by_class_)
    std::ranges::sort(written, {}, [](const Written& w) {
      return std::tie(w.where.file, w.where.line, w.where.column);
    });
}

std::optional<EClassId> WrittenLocations::lookup(TermRef t) {
  // In post-order, without recursion: each operand is looked up first.
  auto visit = [&](TermRef u) {
    if (memo_.contains(u)) return;
    std::vector<EClassId> kids;
    std::optional<EClassId> c;
    for (TermRef o : u->operands()) {
      const auto& k = memo_.at(o);
      if (!k) break;
      kids.push_back(*k);
    }
    if (kids.size() == u->arity())
      c = g_.egraph().lookup(op_symbol(u->kind()), g_.analysis().payloads().intern(u->attrs()),
                             kids);
    if (c) c = g_.egraph().find(*c);
    memo_.emplace(u, c);
  };
  ops::for_each_post_order(t, ops::Bodies::Enter, visit,
                           [&](TermRef u) { return !memo_.contains(u); });
  return memo_.at(t);
}

const SourceLocation* WrittenLocations::of(TermRef t) {
  if (const SourceLocation* at = graph_.location(t)) return at;
  const auto c = lookup(t);
  const auto it = c ? by_class_.find(*c) : by_class_.end();
  if (it == by_class_.end()) return t->kind() == OpKind::Scan ? of_all_steps(t) : nullptr;
  // A written term of the same op (the `index` of `x*1` optimized to an
  // `index` of x), else the first in the file.
  for (const Written& w : it->second)
    if (w.kind == t->kind()) return &w.where;
  return &it->second.front().where;
}

const SourceLocation* WrittenLocations::of_all_steps(TermRef scan) {
  auto spec = scan->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
  if (spec.keep.empty()) return nullptr;
  spec.keep.clear();
  ops::Attrs attrs = scan->attrs();
  attrs.set(ops::AttrKey::Scan, spec);
  const std::vector<TermRef> operands(scan->operands().begin(), scan->operands().end());
  return of(ops::Term::make(OpKind::Scan, std::move(attrs), operands));
}

void WrittenLocations::carry(std::span<const TermRef> roots,
                             std::unordered_map<TermRef, SourceLocation>& locations) {
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](TermRef t) {
    if (locations.contains(t)) return;
    if (const SourceLocation* at = of(t)) locations.emplace(t, *at);
  });
  // A term of no written class (a gradient's pullback) fails where the
  // nearest term above it was written (the `grad`), first reached first.
  std::vector<std::pair<TermRef, const SourceLocation*>> todo;
  for (TermRef r : roots) todo.emplace_back(r, nullptr);
  absl::flat_hash_set<TermRef> seen;
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const auto [t, above] = todo[i];
    if (!seen.insert(t).second) continue;
    const auto it = locations.find(t);
    const SourceLocation* here = it != locations.end() ? &it->second : above;
    if (it == locations.end() && above) locations.emplace(t, *above);
    for (TermRef o : t->operands()) todo.emplace_back(o, here);
  }
}

}  // namespace eqsat::rules
