#include "rules/loops/scan_merge_outputs.hpp"

#include "rules/loops/scan_view.hpp"
#include "rules/tensor/substitute.hpp"

#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;

namespace {

class MergeOutputs final : public ScanApplier {
 public:
  explicit MergeOutputs(TensorEGraph& g) : ScanApplier(g, "scan-merge-outputs") {}

 private:
  bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& s) override {
    const std::vector<EClassId> outputs = body_outputs(g(), s.operands[0]);
    if (outputs.size() != s.fn->arity()) return false;
    // The gets of this loop present in the e-graph, by output.
    std::vector<std::vector<EClassId>> gets(s.num_outputs());
    const std::vector<egraph::ENodeId> parents(eg.parents(root).begin(), eg.parents(root).end());
    for (egraph::ENodeId n : parents)
      if (g().kind(n) == OpKind::Get && eg.find(eg.children(n)[0]) == root)
        gets[static_cast<std::size_t>(g().attrs(n).get<std::int64_t>(ops::AttrKey::Index))]
            .push_back(eg.class_of(n));
    bool changed = false;
    for (std::size_t j2 = 1; j2 < s.num_outputs(); ++j2) {
      if (gets[j2].empty()) continue;
      for (std::size_t j1 = 0; j1 < j2; ++j1) {
        if (!same(s, outputs, j1, j2)) continue;
        ops::Attrs a;
        a.set(ops::AttrKey::Index, static_cast<std::int64_t>(j1));
        const EClassId kids[] = {root};
        const auto get = g().add_op(OpKind::Get, std::move(a), kids);
        if (!get) continue;
        for (EClassId c : gets[j2]) changed |= eg.merge(c, *get);
        break;
      }
    }
    return changed;
  }

  // True when outputs j1 < j2 provably hold the same values.
  bool same(const ScanView& s, const std::vector<EClassId>& outputs, std::size_t j1,
            std::size_t j2) {
    auto& eg = g().egraph();
    if (!s.spec.keep.empty() && s.spec.keep[j1] != s.spec.keep[j2]) return false;
    const std::size_t states = s.num_mitsot() + s.num_sitsot();
    if (j1 >= states) return eg.find(outputs[j1]) == eg.find(outputs[j2]);  // nit-sots
    if (j2 >= states || (j1 < s.num_mitsot()) != (j2 < s.num_mitsot())) return false;
    const std::size_t o1 =
        j1 < s.num_mitsot() ? s.mitsot_operand(j1) : s.sitsot_operand(j1 - s.num_mitsot());
    const std::size_t o2 =
        j2 < s.num_mitsot() ? s.mitsot_operand(j2) : s.sitsot_operand(j2 - s.num_mitsot());
    if (s.operands[o1] != s.operands[o2]) return false;
    if (j1 < s.num_mitsot() && s.spec.mitsot_taps[j1] != s.spec.mitsot_taps[j2]) return false;
    // Read state j2 as state j1 in both next values.
    const auto p1 = s.state_params(j1);
    const auto p2 = s.state_params(j2);
    std::vector<Replace> map;
    for (std::size_t k = 0; k < p1.size(); ++k)
      map.push_back({nominal_class(g(), p2[k], s.params()[static_cast<std::size_t>(p2[k])]),
                     nominal_class(g(), p1[k], s.params()[static_cast<std::size_t>(p1[k])])});
    Substitution subst(g(), std::move(map));
    const auto a = subst(outputs[j1]);
    const auto b = subst(outputs[j2]);
    return a && b && eg.find(*a) == eg.find(*b);
  }
};

}  // namespace

egraph::Rewrite make_scan_merge_outputs(TensorEGraph& g) {
  return make_scan_rewrite("scan-merge-outputs", std::make_shared<MergeOutputs>(g));
}

}  // namespace eqsat::rules
