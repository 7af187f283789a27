#include "rules/tensor/stabilize_through_views.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;

namespace {

constexpr OpKind kViews[] = {OpKind::Index,   OpKind::Slice,       OpKind::Transpose,
                             OpKind::Reshape, OpKind::BroadcastTo, OpKind::ExpandDims,
                             OpKind::Squeeze, OpKind::Flip};
// The operands under `log` a stabilize or logsumexp rule rewrites.
constexpr OpKind kUnderLog[] = {OpKind::Softmax, OpKind::Sigmoid, OpKind::Sum, OpKind::Add,
                                OpKind::Exp};
// The operands under `exp` a stabilize or canonicalize rule rewrites.
constexpr OpKind kUnderExp[] = {OpKind::LogSoftmax, OpKind::Log, OpKind::Log1p, OpKind::Softplus};
// Views of views followed before giving up.
constexpr int kMaxDepth = 4;

bool is_view(OpKind k) {
  return std::ranges::find(kViews, k) != std::end(kViews);
}

// Merges `u(V(y))` with `V(u(y))` where a stabilization can use `u(y)`.
class ThroughViewsApplier final : public egraph::Applier {
 public:
  explicit ThroughViewsApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      const OpKind u = g_.kind(n);
      if (u != OpKind::Log && u != OpKind::Exp) continue;
      const std::span<const OpKind> targets = u == OpKind::Log ? std::span<const OpKind>(kUnderLog)
                                                               : std::span<const OpKind>(kUnderExp);
      const EClassId c = eg.children(n)[0];
      const std::vector<egraph::ENodeId> views(eg.nodes(c).begin(), eg.nodes(c).end());
      for (egraph::ENodeId v : views) {
        if (!is_view(g_.kind(v)) || !useful(eg.children(v)[0], targets)) continue;
        const std::optional<EClassId> same = pushed(u, v, eg.class_of(n));
        if (!same) continue;
        // log of (a view of) softmax, sigmoid or Σ exp is the form its
        // stabilization replaces: extraction must not keep it for sharing.
        if (u == OpKind::Log && unstable_under_log(eg.children(v)[0])) {
          const std::vector<EClassId> kids(eg.children(n).begin(), eg.children(n).end());
          g_.mark_unstable(eg.op(n), eg.payload(n), kids);
        }
        changed |= eg.merge(eg.class_of(n), *same);
      }
    }
    return changed;
  }
  std::string to_string() const override { return "stabilize-through-views"; }

 private:
  // Whether class y holds one of `targets`, possibly under further views.
  bool useful(EClassId y, std::span<const OpKind> targets) const {
    return under_views(y, [&](egraph::ENodeId m) {
      return std::ranges::find(targets, g_.kind(m)) != targets.end();
    });
  }

  // Whether class y holds softmax, sigmoid or a sum of exponentials,
  // possibly under further views: what log makes unstable.
  bool unstable_under_log(EClassId y) const {
    const egraph::EGraph& eg = g_.egraph();
    return under_views(y, [&](egraph::ENodeId m) {
      const OpKind k = g_.kind(m);
      return k == OpKind::Softmax || k == OpKind::Sigmoid ||
             (k == OpKind::Sum && std::ranges::any_of(eg.nodes(eg.children(m)[0]), [&](auto e) {
                return g_.kind(e) == OpKind::Exp;
              }));
    });
  }

  // Whether an e-node satisfying `hit` is in class y or under at most
  // kMaxDepth views below it. Each class is searched again only with more
  // views left than before: views of views often form cycles
  // (squeeze(expand_dims y) is y), and following every path costs the
  // number of view e-nodes per class to the power kMaxDepth.
  template <class Hit>
  bool under_views(EClassId y, Hit hit) const {
    const egraph::EGraph& eg = g_.egraph();
    std::unordered_map<EClassId, int> searched;  // class -> views left when searched
    std::vector<std::pair<EClassId, int>> stack{{y, kMaxDepth}};
    while (!stack.empty()) {
      const auto [c, left] = stack.back();
      stack.pop_back();
      const auto [it, fresh] = searched.try_emplace(c, left);
      if (!fresh) {
        if (it->second >= left) continue;
        it->second = left;
      }
      for (egraph::ENodeId m : eg.nodes(c)) {
        if (hit(m)) return true;
        if (left > 0 && is_view(g_.kind(m))) stack.emplace_back(eg.children(m)[0], left - 1);
      }
    }
    return false;
  }

  // V(u(y)) for the view e-node v = V(y, ...), when it has the type of
  // `root`, the class of u(V(y)).
  std::optional<EClassId> pushed(OpKind u, egraph::ENodeId v, EClassId root) {
    const egraph::EGraph& eg = g_.egraph();
    std::vector<EClassId> kids(eg.children(v).begin(), eg.children(v).end());
    const EClassId inner[] = {kids[0]};
    const std::optional<EClassId> uy = g_.add_op(u, {}, inner);
    if (!uy) return std::nullopt;
    kids[0] = *uy;
    const ops::Attrs attrs = g_.attrs(v);
    const OpKind view = g_.kind(v);
    const std::optional<EClassId> out = g_.add_op(view, attrs, kids);
    if (!out) return std::nullopt;
    const TensorData &a = g_.data(*out), &b = g_.data(root);
    if (!a.is_tensor() || !b.is_tensor() || a.tensor_type() != b.tensor_type()) return std::nullopt;
    return out;
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_stabilize_through_views(TensorEGraph& g) {
  return egraph::Rewrite(
      "stabilize-through-views",
      std::make_shared<OpClassSearcher>(std::vector<OpKind>{OpKind::Log, OpKind::Exp},
                                        "(log|exp (index|slice|transpose|... ?y))",
                                        std::vector<OpKind>(std::begin(kViews), std::end(kViews))),
      std::make_shared<ThroughViewsApplier>(g));
}

}  // namespace eqsat::rules
