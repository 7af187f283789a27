#include "rules/tensor/view_chains.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include "ops/slice.hpp"

#include <algorithm>
#include <optional>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

bool is_reshaping(OpKind k) {
  return k == OpKind::Reshape || k == OpKind::Squeeze || k == OpKind::ExpandDims;
}

// Merges each view class with the single view its chain is.
class ViewChainApplier final : public egraph::Applier {
 public:
  explicit ViewChainApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      const std::optional<EClassId> same = one_view(n);
      if (!same) continue;
      const ops::TensorType *a = tensor(*same), *b = tensor(eg.class_of(n));
      if (a && b && *a == *b) changed |= eg.merge(eg.class_of(n), *same);
    }
    return changed;
  }
  std::string to_string() const override { return "view-chains"; }

 private:
  const ops::TensorType* tensor(EClassId c) const {
    const TensorData& d = g_.data(c);
    return d.is_tensor() ? &d.tensor_type() : nullptr;
  }

  // The slice e-node m resolved on its operand's axis, when that is static.
  std::optional<ops::ResolvedSlice> resolved(egraph::ENodeId m) const {
    const ops::TensorType* x = tensor(g_.egraph().children(m)[0]);
    const ops::Attrs& a = g_.attrs(m);
    const auto axis = static_cast<std::size_t>(a.get<std::int64_t>(AttrKey::Axis));
    if (!x || x->dims[axis] == ops::kUnknownDim) return std::nullopt;
    ops::SliceBounds b;
    if (a.has(AttrKey::Start)) b.start = a.get<std::int64_t>(AttrKey::Start);
    if (a.has(AttrKey::Stop)) b.stop = a.get<std::int64_t>(AttrKey::Stop);
    if (a.has(AttrKey::Step)) b.step = a.get<std::int64_t>(AttrKey::Step);
    return ops::resolve_slice(b, x->dims[axis]);
  }

  // slice(x, :axis a) reading `r` (start, step, length) of x's axis.
  // The slice e-node m's bounds when they hold for any length of its axis:
  // a start >= 0 (0 when absent), a stop >= 0 or none, a step >= 1.
  struct Forward {
    std::int64_t start = 0, step = 1;
    std::optional<std::int64_t> stop;
  };
  std::optional<Forward> forward(egraph::ENodeId m) const {
    const ops::Attrs& a = g_.attrs(m);
    Forward f;
    if (a.has(AttrKey::Start)) f.start = a.get<std::int64_t>(AttrKey::Start);
    if (a.has(AttrKey::Stop)) f.stop = a.get<std::int64_t>(AttrKey::Stop);
    if (a.has(AttrKey::Step)) f.step = a.get<std::int64_t>(AttrKey::Step);
    if (f.start < 0 || f.step < 1 || (f.stop && *f.stop < 0)) return std::nullopt;
    return f;
  }

  // slice(slice(x, a:b:k), c:d:l) along one axis of any length, both
  // forward: x[a + c·k : min(b, a + d·k) : k·l].
  std::optional<EClassId> forward_slices(EClassId x, std::int64_t axis, Forward inner,
                                         Forward outer) {
    ops::Attrs a{{AttrKey::Axis, axis},
                 {AttrKey::Start, inner.start + outer.start * inner.step},
                 {AttrKey::Step, inner.step * outer.step}};
    std::optional<std::int64_t> stop = inner.stop;
    if (outer.stop) {
      const std::int64_t s = inner.start + *outer.stop * inner.step;
      stop = stop ? std::min(*stop, s) : s;
    }
    if (stop) a.set(AttrKey::Stop, *stop);
    const EClassId kids[] = {x};
    return g_.add_op(OpKind::Slice, std::move(a), kids);
  }

  std::optional<EClassId> slice_of(EClassId x, std::int64_t axis, ops::ResolvedSlice r) {
    ops::Attrs a{{AttrKey::Axis, axis}, {AttrKey::Step, r.step}};
    const std::int64_t stop = r.start + r.length * r.step;
    if (r.length == 0) {
      a.set(AttrKey::Start, std::int64_t{0}).set(AttrKey::Stop, std::int64_t{0});
      a.set(AttrKey::Step, std::int64_t{1});
    } else {
      a.set(AttrKey::Start, r.start);
      if (stop >= 0) a.set(AttrKey::Stop, stop);  // else: to the front of the axis
    }
    const EClassId kids[] = {x};
    return g_.add_op(OpKind::Slice, std::move(a), kids);
  }

  std::optional<EClassId> one_view(egraph::ENodeId n) {
    const egraph::EGraph& eg = g_.egraph();
    const OpKind k = g_.kind(n);
    if (!is_reshaping(k) && k != OpKind::Slice && k != OpKind::Index) return std::nullopt;
    const EClassId inner = eg.children(n)[0];
    if (is_reshaping(k)) {
      const ops::TensorType* y = tensor(eg.class_of(n));
      if (!y || !y->is_static()) return std::nullopt;
      for (egraph::ENodeId m : eg.nodes(inner)) {
        if (!is_reshaping(g_.kind(m))) continue;
        const EClassId kids[] = {eg.children(m)[0]};
        return g_.add_op(OpKind::Reshape, {{AttrKey::Shape, ops::IntList(y->dims)}}, kids);
      }
      return std::nullopt;
    }
    if (k == OpKind::Slice) {
      const std::optional<ops::ResolvedSlice> outer = resolved(n);
      const std::int64_t axis = g_.attrs(n).get<std::int64_t>(AttrKey::Axis);
      if (!outer) {
        const std::optional<Forward> last = forward(n);
        if (!last) return std::nullopt;
        for (egraph::ENodeId m : eg.nodes(inner)) {
          if (g_.kind(m) != OpKind::Slice || g_.attrs(m).get<std::int64_t>(AttrKey::Axis) != axis)
            continue;
          if (const std::optional<Forward> first = forward(m))
            return forward_slices(eg.children(m)[0], axis, *first, *last);
        }
        return std::nullopt;
      }
      const ops::TensorType* x = tensor(inner);
      if (outer->step == -1 && outer->length == x->dims[static_cast<std::size_t>(axis)] &&
          outer->start == outer->length - 1) {
        const EClassId kids[] = {inner};
        return g_.add_op(OpKind::Flip, {{AttrKey::Axis, ops::IntList{axis}}}, kids);
      }
      for (egraph::ENodeId m : eg.nodes(inner)) {
        if (g_.kind(m) != OpKind::Slice || g_.attrs(m).get<std::int64_t>(AttrKey::Axis) != axis)
          continue;
        const std::optional<ops::ResolvedSlice> first = resolved(m);
        if (!first) continue;
        return slice_of(
            eg.children(m)[0], axis,
            {first->start + outer->start * first->step, first->step * outer->step, outer->length});
      }
      return std::nullopt;
    }
    // index(slice(x, :axis 0), i) for a constant i in range
    const TensorData& i = g_.data(eg.children(n)[1]);
    if (!i.value || !i.is_tensor() || !i.tensor_type().is_scalar()) return std::nullopt;
    for (egraph::ENodeId m : eg.nodes(inner)) {
      if (g_.kind(m) != OpKind::Slice || g_.attrs(m).get<std::int64_t>(AttrKey::Axis) != 0)
        continue;
      const std::optional<ops::ResolvedSlice> s = resolved(m);
      const std::optional<std::int64_t> at = i.value->integer_element(0);
      if (!at) continue;
      std::int64_t j = 0;
      if (s && *at >= -s->length && *at < s->length) {
        j = s->start + (*at < 0 ? *at + s->length : *at) * s->step;
      } else if (const std::optional<Forward> f = forward(m); !s && f && !f->stop && *at >= 0) {
        // Any length: x[a::k][i] fails exactly where x[a + i·k] does.
        j = f->start + *at * f->step;
      } else {
        continue;
      }
      const EClassId index = g_.add_term(ops::Term::scalar(i.tensor_type().dtype, double(j)));
      const EClassId kids[] = {eg.children(m)[0], index};
      return g_.add_op(OpKind::Index, {}, kids);
    }
    return std::nullopt;
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_view_chains(TensorEGraph& g) {
  return egraph::Rewrite("view-chains",
                         std::make_shared<OpClassSearcher>(
                             std::vector<OpKind>{OpKind::Reshape, OpKind::Squeeze,
                                                 OpKind::ExpandDims, OpKind::Slice, OpKind::Index},
                             "(reshape|squeeze|expand_dims|slice|index ?x)"),
                         std::make_shared<ViewChainApplier>(g));
}

}  // namespace eqsat::rules
