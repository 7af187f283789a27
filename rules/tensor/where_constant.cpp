#include "rules/tensor/where_constant.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include <optional>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// Merges each `where` class with a uniform condition with its branch,
// unless the class may fail and the branch cannot (the branch not taken
// fails as written: the check stays).
class WhereConstantApplier final : public egraph::Applier {
 public:
  explicit WhereConstantApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      if (g_.kind(n) != OpKind::Where) continue;
      const std::optional<double> c = g_.data(eg.children(n)[0]).uniform;
      const TensorData& y = g_.data(eg.class_of(n));
      if (!c || !y.is_tensor() || !y.tensor_type().is_static()) continue;
      const EClassId branch = eg.children(n)[*c != 0 ? 1 : 2];
      // The other branch is computed as written: its failure must stay.
      if (auto same = assigned(branch, y.tensor_type()); same && !drops_check(g_, root, *same))
        changed |= eg.merge(root, *same);
    }
    return changed;
  }
  std::string to_string() const override { return "where-constant"; }

 private:
  // `v` cast to `to`'s dtype and broadcast to its static shape (`to` is a
  // copy: adding e-nodes may move the analysis data it came from).
  std::optional<EClassId> assigned(EClassId v, const ops::TensorType to) {
    const TensorData& d = g_.data(v);
    if (!d.is_tensor()) return std::nullopt;
    const ops::TensorType from = d.tensor_type();
    std::optional<EClassId> c = v;
    if (from.dtype != to.dtype) {
      const EClassId kids[] = {*c};
      c = g_.add_op(OpKind::Cast, {{AttrKey::Dtype, to.dtype}}, kids);
    }
    if (c && from.dims != to.dims) {
      const EClassId kids[] = {*c};
      c = g_.add_op(OpKind::BroadcastTo, {{AttrKey::Shape, ops::IntList(to.dims)}}, kids);
    }
    return c;
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_where_constant(TensorEGraph& g) {
  return egraph::Rewrite(
      "where-constant",
      std::make_shared<OpClassSearcher>(std::vector<OpKind>{OpKind::Where}, "(where C ?a ?b)"),
      std::make_shared<WhereConstantApplier>(g));
}

}  // namespace eqsat::rules
