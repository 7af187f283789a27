#include "rules/tensor/dimshuffle_chains.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include <algorithm>
#include <optional>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

constexpr OpKind kShuffles[] = {OpKind::Transpose, OpKind::ExpandDims, OpKind::Squeeze};

bool is_shuffle(OpKind k) {
  return std::ranges::find(kShuffles, k) != std::end(kShuffles);
}

// For each result axis of a shuffle e-node over an operand of rank `rank`:
// the operand axis it is, or -1 for a new axis of length 1.
using AxisMap = std::vector<std::int64_t>;
constexpr std::int64_t kNew = -1;

AxisMap axis_map(OpKind k, const ops::Attrs& a, std::int64_t rank) {
  AxisMap out;
  if (k == OpKind::Transpose) {
    const auto& perm = a.get<ops::IntList>(AttrKey::Perm);
    return AxisMap(perm.begin(), perm.end());
  }
  if (k == OpKind::ExpandDims) {
    const auto at = a.get<std::int64_t>(AttrKey::Axis);
    for (std::int64_t i = 0; i < rank; ++i) {
      if (i == at) out.push_back(kNew);
      out.push_back(i);
    }
    if (at == rank) out.push_back(kNew);
    return out;
  }
  const auto& dropped = a.get<ops::IntList>(AttrKey::Axis);  // squeeze
  for (std::int64_t i = 0; i < rank; ++i)
    if (std::ranges::find(dropped, i) == dropped.end()) out.push_back(i);
  return out;
}

// Merges each shuffle of a shuffle with the canonical chain of its map.
class DimshuffleChainApplier final : public egraph::Applier {
 public:
  explicit DimshuffleChainApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      if (!is_shuffle(g_.kind(n))) continue;
      const EClassId mid = eg.children(n)[0];
      const std::vector<egraph::ENodeId> inner(eg.nodes(mid).begin(), eg.nodes(mid).end());
      for (egraph::ENodeId m : inner) {
        if (!is_shuffle(g_.kind(m))) continue;
        const std::optional<EClassId> same = collapsed(n, m);
        if (!same || !tensor(*same) || !tensor(root) || *tensor(*same) != *tensor(root) ||
            drops_check(g_, root, *same))
          continue;
        changed |= eg.merge(root, *same);
      }
    }
    return changed;
  }
  std::string to_string() const override { return "dimshuffle-chains"; }

 private:
  const ops::TensorType* tensor(EClassId c) const {
    const TensorData& d = g_.data(c);
    return d.is_tensor() ? &d.tensor_type() : nullptr;
  }

  // The canonical chain of outer(inner(x)), n the outer e-node, m the inner.
  std::optional<EClassId> collapsed(egraph::ENodeId n, egraph::ENodeId m) {
    const egraph::EGraph& eg = g_.egraph();
    const EClassId x = eg.children(m)[0];
    const ops::TensorType* xt = tensor(x);
    const ops::TensorType* mt = tensor(eg.children(n)[0]);
    if (!xt || !mt) return std::nullopt;
    const ops::Dims x_dims = xt->dims;  // a copy: adding e-nodes may move it
    const auto rank = static_cast<std::int64_t>(x_dims.size());
    const AxisMap in = axis_map(g_.kind(m), g_.attrs(m), rank);
    const AxisMap out = axis_map(g_.kind(n), g_.attrs(n), static_cast<std::int64_t>(in.size()));
    AxisMap map;
    for (std::int64_t o : out) map.push_back(o == kNew ? kNew : in[static_cast<std::size_t>(o)]);
    // A dropped axis of static length 1 serves as a new axis instead.
    std::vector<bool> kept(x_dims.size(), false);
    for (std::int64_t a : map)
      if (a != kNew) kept[static_cast<std::size_t>(a)] = true;
    for (std::int64_t& a : map) {
      if (a != kNew) continue;
      for (std::size_t j = 0; j < kept.size(); ++j)
        if (!kept[j] && x_dims[j] == 1) {
          a = static_cast<std::int64_t>(j);
          kept[j] = true;
          break;
        }
    }
    std::optional<EClassId> c = x;
    ops::IntList dropped;
    for (std::size_t j = 0; j < kept.size(); ++j)
      if (!kept[j]) dropped.push_back(static_cast<std::int64_t>(j));
    if (!dropped.empty()) c = add(OpKind::Squeeze, {{AttrKey::Axis, dropped}}, *c);
    // Positions of x's kept axes after the squeeze.
    ops::IntList perm;
    for (std::int64_t a : map) {
      if (a == kNew) continue;
      perm.push_back(a - std::ranges::count_if(dropped, [&](std::int64_t d) { return d < a; }));
    }
    if (c && !std::ranges::is_sorted(perm)) c = add(OpKind::Transpose, {{AttrKey::Perm, perm}}, *c);
    for (std::size_t k = 0; k < map.size() && c; ++k)
      if (map[k] == kNew)
        c = add(OpKind::ExpandDims, {{AttrKey::Axis, static_cast<std::int64_t>(k)}}, *c);
    return c;
  }

  std::optional<EClassId> add(OpKind k, ops::Attrs attrs, EClassId x) {
    const EClassId kids[] = {x};
    return g_.add_op(k, std::move(attrs), kids);
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_dimshuffle_chains(TensorEGraph& g) {
  return egraph::Rewrite("dimshuffle-chains",
                         std::make_shared<OpClassSearcher>(
                             std::vector<OpKind>(std::begin(kShuffles), std::end(kShuffles)),
                             "(transpose|expand_dims|squeeze ?x)"),
                         std::make_shared<DimshuffleChainApplier>(g));
}

}  // namespace eqsat::rules
