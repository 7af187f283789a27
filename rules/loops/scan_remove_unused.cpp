#include "rules/loops/scan_remove_unused.hpp"

#include "rules/loops/scan_form_memo.hpp"
#include "rules/loops/scan_prune.hpp"
#include "rules/loops/scan_view.hpp"

#include <set>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;

namespace {

class RemoveUnused final : public ScanApplier {
 public:
  explicit RemoveUnused(TensorEGraph& g) : ScanApplier(g, "scan-remove-unused") {}

 private:
  bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& s) override {
    bool changed = false;
    // The whole tuple: unread inputs go, the loop keeps its outputs.
    std::set<std::size_t> all;
    for (std::size_t j = 0; j < s.num_outputs(); ++j) all.insert(j);
    if (auto p = prune(s, all); p && p->same_tuple && compatible_types(root, p->scan))
      changed |= eg.merge(root, p->scan);
    // Per reader, and for all the readers present together.
    std::set<std::size_t> read;
    std::vector<std::pair<EClassId, std::size_t>> gets;
    const std::vector<egraph::ENodeId> parents(eg.parents(root).begin(), eg.parents(root).end());
    for (egraph::ENodeId n : parents) {
      if (g().kind(n) != OpKind::Get || eg.find(eg.children(n)[0]) != root) continue;
      const auto i = static_cast<std::size_t>(g().attrs(n).get<std::int64_t>(ops::AttrKey::Index));
      gets.emplace_back(eg.class_of(n), i);
      read.insert(i);
    }
    std::vector<std::set<std::size_t>> wanted;
    for (std::size_t i : read) wanted.push_back({i});
    if (read.size() > 1 && read != all) wanted.push_back(read);
    for (const auto& w : wanted) {
      const auto p = prune(s, w);
      if (!p || p->same_tuple) continue;
      for (const auto& [cls, i] : gets) {
        if (!w.contains(i)) continue;
        const auto get = get_of(p->scan, p->index_of[i]);
        if (get && compatible_types(cls, *get)) changed |= eg.merge(cls, *get);
      }
    }
    return changed;
  }

  std::optional<EClassId> get_of(EClassId scan, std::int64_t i) {
    ops::Attrs a;
    a.set(ops::AttrKey::Index, i);
    const EClassId kids[] = {scan};
    return g().add_op(OpKind::Get, std::move(a), kids);
  }

  // Types that may share a class: equal but for dimensions one of them
  // does not know (element-wise for tuples).
  bool compatible_types(EClassId a, EClassId b) const {
    const ops::Type& x = g().type(a);
    const ops::Type& y = g().type(b);
    if (x.index() != y.index()) return false;
    if (const auto* t = std::get_if<ops::TensorType>(&x))
      return ops::compatible(*t, std::get<ops::TensorType>(y));
    const auto& xs = std::get<ops::TupleType>(x).elements;
    const auto& ys = std::get<ops::TupleType>(y).elements;
    if (xs.size() != ys.size()) return false;
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (!ops::compatible(xs[i], ys[i])) return false;
    return true;
  }

  // prune_loop(g(), s, wanted), once per loop form and wanted set.
  std::optional<PrunedLoop> prune(const ScanView& s, const std::set<std::size_t>& wanted) {
    auto& p = pruned_.get(s, wanted, [&] { return prune_loop(g(), s, wanted); });
    if (p) p->scan = g().egraph().find(p->scan);
    return p;
  }

  FormMemo<std::set<std::size_t>, std::optional<PrunedLoop>> pruned_;
};

}  // namespace

egraph::Rewrite make_scan_remove_unused(TensorEGraph& g) {
  return make_scan_rewrite("scan-remove-unused", std::make_shared<RemoveUnused>(g));
}

}  // namespace eqsat::rules
