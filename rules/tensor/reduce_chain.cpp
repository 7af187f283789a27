#include "rules/tensor/reduce_chain.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include <algorithm>
#include <optional>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// Merges each reduction class with the single reduction (or reshape) it
// equals. `rounding` selects the sum/prod chains; otherwise max/min chains
// and reductions over length-1 axes.
class ReduceChainApplier final : public egraph::Applier {
 public:
  ReduceChainApplier(TensorEGraph& g, bool rounding) : g_(g), rounding_(rounding) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      std::optional<EClassId> same =
          rounding_ ? chain(n, {OpKind::Sum, OpKind::Prod}) : chain(n, {OpKind::Max, OpKind::Min});
      if (!same && !rounding_) same = unit_axes(n);
      if (!same) same = over_copies(n);
      if (same && same_type(*same, eg.class_of(n))) changed |= eg.merge(eg.class_of(n), *same);
    }
    return changed;
  }
  std::string to_string() const override {
    return rounding_ ? "reduce-chain-rounding" : "reduce-chain";
  }

 private:
  const ops::TensorType* tensor(EClassId c) const { return g_.tensor_type(c); }
  bool same_type(EClassId a, EClassId b) const { return g_.same_tensor_type(a, b); }

  // r(r(x, A, k), B, k) = r(x, A ∪ B', k) for r among `kinds`.
  std::optional<EClassId> chain(egraph::ENodeId n, std::initializer_list<OpKind> kinds) {
    const egraph::EGraph& eg = g_.egraph();
    const OpKind k = g_.kind(n);
    if (std::ranges::find(kinds, k) == kinds.end()) return std::nullopt;
    const ops::Attrs& outer = g_.attrs(n);
    const bool keep = outer.get<bool>(AttrKey::Keepdims);
    for (egraph::ENodeId m : eg.nodes(eg.children(n)[0])) {
      if (g_.kind(m) != k) continue;
      const ops::Attrs& inner = g_.attrs(m);
      if (inner.get<bool>(AttrKey::Keepdims) != keep) continue;
      const EClassId x = eg.children(m)[0];
      const ops::TensorType* xt = tensor(x);
      if (!xt) continue;
      ops::IntList axes = inner.get<ops::IntList>(AttrKey::Axis);
      // Without keepdims, outer axis j is the j-th axis of x the inner
      // reduction kept; with keepdims the numbering is x's.
      std::vector<std::int64_t> kept;
      for (std::int64_t i = 0; i < xt->rank(); ++i)
        if (keep || std::ranges::find(axes, i) == axes.end()) kept.push_back(i);
      for (std::int64_t j : outer.get<ops::IntList>(AttrKey::Axis))
        axes.push_back(kept.at(static_cast<std::size_t>(j)));
      std::ranges::sort(axes);
      axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
      const EClassId kids[] = {x};
      return g_.add_op(k, {{AttrKey::Axis, axes}, {AttrKey::Keepdims, keep}}, kids);
    }
    return std::nullopt;
  }

  // A reduction over axes of static length 1 only: x itself (keepdims), x
  // reshaped to the result's static shape, or x with those axes squeezed
  // (other lengths unknown statically).
  std::optional<EClassId> unit_axes(egraph::ENodeId n) {
    const egraph::EGraph& eg = g_.egraph();
    const OpKind k = g_.kind(n);
    if (k != OpKind::Sum && k != OpKind::Prod && k != OpKind::Max && k != OpKind::Min &&
        k != OpKind::Mean)
      return std::nullopt;
    const EClassId x = eg.children(n)[0];
    const ops::TensorType* xt = tensor(x);
    const ops::TensorType* yt = tensor(eg.class_of(n));
    if (!xt || !yt || xt->dtype != yt->dtype) return std::nullopt;
    const ops::Attrs& a = g_.attrs(n);
    for (std::int64_t axis : a.get<ops::IntList>(AttrKey::Axis))
      if (xt->dims[static_cast<std::size_t>(axis)] != 1) return std::nullopt;
    if (a.get<bool>(AttrKey::Keepdims)) return x;
    const EClassId kids[] = {x};
    if (!yt->is_static())
      return g_.add_op(OpKind::Squeeze, {{AttrKey::Axis, a.get<ops::IntList>(AttrKey::Axis)}},
                       kids);
    return g_.add_op(OpKind::Reshape, {{AttrKey::Shape, ops::IntList(yt->dims)}}, kids);
  }

  // A reduction (without keepdims) of broadcast_to(x, s) over exactly the
  // axes the broadcast adds or stretches from 1, each nonempty, keeping the
  // others as x has them: max and min are x with its stretched axes
  // squeezed; with `rounding`, for floats, the sum is that times the number
  // of copies k, the product its k-th power, the mean itself (k copies
  // added round where one product does not). x's lengths are then all
  // static, so nothing that could fail is dropped.
  std::optional<EClassId> over_copies(egraph::ENodeId n) {
    const egraph::EGraph& eg = g_.egraph();
    const OpKind k = g_.kind(n);
    const ops::Attrs& a = g_.attrs(n);
    const bool exact = k == OpKind::Max || k == OpKind::Min;
    const bool rounds = k == OpKind::Sum || k == OpKind::Prod || k == OpKind::Mean;
    if ((rounding_ ? !rounds : !exact) || a.get<bool>(AttrKey::Keepdims)) return std::nullopt;
    const ops::IntList& axes = a.get<ops::IntList>(AttrKey::Axis);
    for (egraph::ENodeId m : eg.nodes(eg.children(n)[0])) {
      if (g_.kind(m) != OpKind::BroadcastTo) continue;
      const EClassId x = eg.children(m)[0];
      const ops::TensorType* xt = tensor(x);
      const ops::TensorType* yt = tensor(eg.class_of(m));
      if (!xt || !yt || (rounding_ && !ops::is_float(xt->dtype))) continue;
      const std::int64_t offset = yt->rank() - xt->rank();
      ops::IntList stretched;
      std::int64_t copies = 1;
      bool ok = true;
      for (std::int64_t d = 0; d < yt->rank() && ok; ++d) {
        const std::int64_t s = yt->dims[static_cast<std::size_t>(d)];
        const std::int64_t xd = d < offset ? 1 : xt->dims[static_cast<std::size_t>(d - offset)];
        if (std::ranges::find(axes, d) != axes.end()) {
          ok = s >= 1 && xd == 1;
          copies *= s;
          if (d >= offset) stretched.push_back(d - offset);
        } else {
          ok = d >= offset && xd == s;
        }
      }
      if (!ok) continue;
      std::optional<EClassId> one = x;
      if (!stretched.empty()) {
        const EClassId kids[] = {x};
        one = g_.add_op(OpKind::Squeeze, {{AttrKey::Axis, stretched}}, kids);
      }
      if (!one || exact || k == OpKind::Mean) return one;
      const EClassId kids[] = {*one, g_.add_term(ops::Term::scalar(xt->dtype, double(copies)))};
      return g_.add_op(k == OpKind::Sum ? OpKind::Mul : OpKind::Pow, {}, kids);
    }
    return std::nullopt;
  }

  TensorEGraph& g_;
  bool rounding_;
};

}  // namespace

egraph::Rewrite make_reduce_chain(TensorEGraph& g) {
  return egraph::Rewrite(
      "reduce-chain",
      std::make_shared<OpClassSearcher>(
          std::vector<OpKind>{OpKind::Sum, OpKind::Prod, OpKind::Max, OpKind::Min, OpKind::Mean},
          "(max|min|sum|prod|mean ?x)"),
      std::make_shared<ReduceChainApplier>(g, false));
}

egraph::Rewrite make_reduce_chain_rounding(TensorEGraph& g) {
  return egraph::Rewrite(
      "reduce-chain-rounding",
      std::make_shared<OpClassSearcher>(
          std::vector<OpKind>{OpKind::Sum, OpKind::Prod, OpKind::Mean}, "(sum|prod|mean ?x)"),
      std::make_shared<ReduceChainApplier>(g, true));
}

}  // namespace eqsat::rules
