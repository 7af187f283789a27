#include "rules/tensor/shape_identities.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include "ops/slice.hpp"

#include <numeric>
#include <optional>
#include <span>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

class ShapeIdentityApplier final : public egraph::Applier {
 public:
  explicit ShapeIdentityApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes)
      if (auto same = identity(n); same && !drops_check(g_, root, *same))
        changed |= eg.merge(root, *same);
    return changed;
  }
  std::string to_string() const override { return "shape-identities"; }

 private:
  const ops::TensorType* tensor(EClassId c) const {
    const TensorData& d = g_.data(c);
    return d.is_tensor() ? &d.tensor_type() : nullptr;
  }

  // Whether the slice attributes of e-node n select all of axis :axis of x
  // in order (`step` 1) or reversed (`step` -1).
  bool whole_slice(egraph::ENodeId n, const ops::TensorType& x, std::int64_t step = 1) const {
    const ops::Attrs& a = g_.attrs(n);
    const auto axis = a.get<std::int64_t>(AttrKey::Axis);
    const std::int64_t len = x.dims[axis];
    ops::SliceBounds b;
    if (a.has(AttrKey::Start)) b.start = a.get<std::int64_t>(AttrKey::Start);
    if (a.has(AttrKey::Stop)) b.stop = a.get<std::int64_t>(AttrKey::Stop);
    if (a.has(AttrKey::Step)) b.step = a.get<std::int64_t>(AttrKey::Step);
    if (len == ops::kUnknownDim) return ops::selects_any_whole_axis(b, step);
    const ops::ResolvedSlice r = ops::resolve_slice(b, len);
    return r.step == step && r.start == (step == 1 ? 0 : len - 1) && r.length == len;
  }

  // set_slice(x, v) over all of axis A reversed: v, cast and broadcast to
  // x's type, flipped along A (PyTensor's local_useless_inc_subtensor for
  // `x[::-1] = v`).
  std::optional<EClassId> assigned_reversed(egraph::ENodeId n, EClassId v, EClassId target,
                                            const ops::TensorType& x) {
    const std::optional<EClassId> c = assigned(v, target, x);
    if (!c) return std::nullopt;
    const EClassId kids[] = {*c};
    const auto axis = g_.attrs(n).get<std::int64_t>(AttrKey::Axis);
    return g_.add_op(OpKind::Flip, {{AttrKey::Axis, ops::IntList{axis}}}, kids);
  }

  // `v` cast to `to`'s dtype and broadcast to its shape, that of class
  // `target` (`to` is a copy: adding e-nodes may move the analysis data it
  // came from). An unknown length must provably not be widened by v (dim
  // symbols): a v of 1 element, or 3, beside a target of 3 is not the set.
  std::optional<EClassId> assigned(EClassId v, EClassId target, const ops::TensorType to) {
    const ops::TensorType* t = tensor(v);
    if (!t) return std::nullopt;
    const bool widens_target = !broadcasts_to(g_.data(v), g_.data(target));
    if (!to.is_static() && widens_target) return std::nullopt;
    const bool same_shape = !widens_target && broadcasts_to(g_.data(target), g_.data(v));
    if (t->dtype == to.dtype && same_shape) return v;
    std::optional<EClassId> c = v;
    if (t->dtype != to.dtype) {
      const EClassId kids[] = {*c};
      c = g_.add_op(OpKind::Cast, {{AttrKey::Dtype, to.dtype}}, kids);
    }
    if (c && !same_shape) {
      const EClassId kids[] = {*c, target};
      c = to.is_static() ? g_.add_op(OpKind::BroadcastTo, {{AttrKey::Shape, ops::IntList(to.dims)}},
                                     std::span<const EClassId>(kids, 1))
                         : g_.add_op(OpKind::BroadcastLike, {}, kids);
    }
    return c;
  }

  // x + v cast to x's dtype, when v provably does not widen x (static
  // lengths or dim symbols: an unknown v of 3 elements would widen an x of
  // 1, where the inc_slice fails): an inc_slice over the whole of x.
  std::optional<EClassId> added(EClassId x, EClassId v, const ops::TensorType to) {
    const ops::TensorType* t = tensor(v);
    if (!t || !broadcasts_to(g_.data(v), g_.data(x))) return std::nullopt;
    std::optional<EClassId> c = v;
    if (t->dtype != to.dtype) {
      const EClassId kids[] = {v};
      c = g_.add_op(OpKind::Cast, {{AttrKey::Dtype, to.dtype}}, kids);
    }
    if (!c) return std::nullopt;
    const EClassId kids[] = {x, *c};
    const std::optional<EClassId> sum = g_.add_op(OpKind::Add, {}, kids);
    if (!sum || !tensor(*sum) || *tensor(*sum) != to) return std::nullopt;
    return sum;
  }

  // x + v cast and broadcast to x without widening it, for any v: v as
  // `assigned` gives it where it can (static x, or v provably fitting),
  // else `set_slice(zeros_like(x), v)` over all of x, whose check is the
  // inc_slice's own (v fits x: it may not widen x, which broadcast_like
  // and add would) and whose value is v cast to x's dtype everywhere.
  std::optional<EClassId> added_fitted(EClassId x, EClassId v, const ops::TensorType to) {
    std::optional<EClassId> fitted = assigned(v, x, to);
    if (!fitted) {
      const EClassId like[] = {x};
      const std::optional<EClassId> zeros = g_.add_op(OpKind::ZerosLike, {}, like);
      if (!zeros) return std::nullopt;
      const EClassId kids[] = {*zeros, v};
      fitted = g_.add_op(OpKind::SetSlice, {{AttrKey::Axis, std::int64_t{0}}}, kids);
    }
    if (!fitted) return std::nullopt;
    const EClassId kids[] = {x, *fitted};
    const std::optional<EClassId> sum = g_.add_op(OpKind::Add, {}, kids);
    if (!sum || !tensor(*sum) || *tensor(*sum) != to) return std::nullopt;
    return sum;
  }

  // The one operand of a concat whose others all have static length 0
  // along its axis, cast to the result `to` (test_local_join_empty).
  std::optional<EClassId> only_nonempty(egraph::ENodeId n, const ops::TensorType to) {
    const egraph::EGraph& eg = g_.egraph();
    const auto axis = static_cast<std::size_t>(g_.attrs(n).get<std::int64_t>(AttrKey::Axis));
    if (eg.children(n).size() < 2) return std::nullopt;  // concat-one (indexing.rules)
    std::optional<EClassId> kept;
    for (EClassId k : eg.children(n)) {
      const ops::TensorType* t = tensor(k);
      if (!t) return std::nullopt;
      if (t->dims[axis] == 0) continue;
      if (kept) return std::nullopt;
      kept = k;
    }
    if (!kept) return std::nullopt;
    // On lengths unknown statically: the operand itself where it has the
    // result's type and the concat cannot fail (its other lengths match).
    if (!to.is_static())
      return *tensor(*kept) == to && !g_.data(eg.class_of(n)).may_fail ? kept : std::nullopt;
    return assigned(*kept, g_.egraph().class_of(n), to);
  }

  // The class e-node n equals by one of the identities, if any.
  std::optional<EClassId> identity(egraph::ENodeId n) {
    const egraph::EGraph& eg = g_.egraph();
    const Identity* root = nullptr;
    for (const Identity& i : kIdentities)
      if (i.root == g_.kind(n)) root = &i;
    if (!root) return std::nullopt;
    const std::vector<EClassId> kids(eg.children(n).begin(), eg.children(n).end());
    const ops::TensorType* x = tensor(kids[0]);
    const ops::TensorType* y = tensor(eg.class_of(n));
    if (!x || !y) return std::nullopt;
    return (this->*root->when)({n, kids, *x, *y});
  }

  // What an identity reads: e-node n, its operands' classes, the type x of
  // operand 0 and the result's y.
  struct Node {
    egraph::ENodeId n;
    const std::vector<EClassId>& kids;
    const ops::TensorType& x;
    const ops::TensorType& y;
  };

  std::optional<EClassId> slice(const Node& n) {
    if (whole_slice(n.n, n.x)) return n.kids[0];
    return read_of_write(n);
  }

  // slice(set_slice(x, v, S), S) = set_slice(slice(x, S), v) over all of
  // the region (inc_slice likewise): only the region is written, with the
  // write's own check that v fits it (a slice never fails: its bounds clamp).
  std::optional<EClassId> read_of_write(const Node& n) {
    const egraph::EGraph& eg = g_.egraph();
    const ops::Attrs bounds = g_.attrs(n.n);
    for (egraph::ENodeId m : eg.nodes(n.kids[0])) {
      const OpKind k = g_.kind(m);
      if ((k != OpKind::SetSlice && k != OpKind::IncSlice) || !(g_.attrs(m) == bounds)) continue;
      const EClassId x[] = {eg.children(m)[0]};
      const EClassId v = eg.children(m)[1];
      const std::optional<EClassId> region = g_.add_op(OpKind::Slice, bounds, x);
      if (!region) return std::nullopt;
      const EClassId kids[] = {*region, v};
      return g_.add_op(k, {{AttrKey::Axis, bounds.get<std::int64_t>(AttrKey::Axis)}}, kids);
    }
    return std::nullopt;
  }

  // reshape or broadcast_to to x's own static shape.
  std::optional<EClassId> same_shape(const Node& n) {
    if (n.x.is_static() && n.x.dims == n.y.dims) return n.kids[0];
    return std::nullopt;
  }

  // flip along axes of length 1.
  std::optional<EClassId> flip(const Node& n) {
    for (auto axis : g_.attrs(n.n).get<ops::IntList>(AttrKey::Axis))
      if (n.x.dims[axis] != 1) return std::nullopt;
    return n.kids[0];
  }

  std::optional<EClassId> transpose(const Node& n) {
    const egraph::EGraph& eg = g_.egraph();
    const auto& q = g_.attrs(n.n).get<ops::IntList>(AttrKey::Perm);
    ops::IntList id(q.size());
    std::iota(id.begin(), id.end(), 0);
    if (q == id) return n.kids[0];
    // transpose(transpose(x, p), q) = transpose(x, r), r[i] = p[q[i]]
    for (egraph::ENodeId m : eg.nodes(n.kids[0])) {
      if (g_.kind(m) != OpKind::Transpose) continue;
      const auto& p = g_.attrs(m).get<ops::IntList>(AttrKey::Perm);
      ops::IntList r(q.size());
      for (std::size_t i = 0; i < q.size(); ++i) r[i] = p[q[i]];
      const EClassId inner[] = {eg.children(m)[0]};
      return r == id ? std::optional(inner[0])
                     : g_.add_op(OpKind::Transpose, {{AttrKey::Perm, r}}, inner);
    }
    return std::nullopt;
  }

  std::optional<EClassId> set_slice(const Node& n) {
    if (whole_slice(n.n, n.x)) return assigned(n.kids[1], n.kids[0], n.x);
    if (whole_slice(n.n, n.x, -1)) return assigned_reversed(n.n, n.kids[1], n.kids[0], n.x);
    return written_back(n);
  }

  // set_slice(x, slice(x, S), S) = x: the region's own values written back
  // (PyTensor's local_useless_inc_subtensor); they fit, and a slice never fails.
  std::optional<EClassId> written_back(const Node& n) {
    const egraph::EGraph& eg = g_.egraph();
    const ops::Attrs& bounds = g_.attrs(n.n);
    for (egraph::ENodeId m : eg.nodes(n.kids[1]))
      if (g_.kind(m) == OpKind::Slice && eg.find(eg.children(m)[0]) == eg.find(n.kids[0]) &&
          g_.attrs(m) == bounds)
        return n.kids[0];
    return std::nullopt;
  }

  std::optional<EClassId> inc_slice(const Node& n) {
    if (!whole_slice(n.n, n.x)) return std::nullopt;
    const TensorData& z = g_.data(n.kids[0]);
    if (z.uniform && *z.uniform == 0) return assigned(n.kids[1], n.kids[0], n.x);
    if (std::optional<EClassId> sum = added(n.kids[0], n.kids[1], n.x)) return sum;
    return added_fitted(n.kids[0], n.kids[1], n.x);
  }

  std::optional<EClassId> concat(const Node& n) {
    if (std::optional<EClassId> one = only_nonempty(n.n, n.y)) return one;
    return stacked_scalars(n.n);
  }

  // concat(stack(a, b), stack(c), ...) along axis 0, each operand a stack
  // of scalars (or a scalar's expand_dims), is stack(a, b, c, ...)
  // (PyTensor's local_join_make_vector). Stacked scalars never fail.
  std::optional<EClassId> stacked_scalars(egraph::ENodeId n) {
    const egraph::EGraph& eg = g_.egraph();
    if (g_.attrs(n).get<std::int64_t>(AttrKey::Axis) != 0) return std::nullopt;
    std::vector<EClassId> scalars;
    for (EClassId k : eg.children(n)) {
      const auto is_scalar = [&](EClassId c) {
        const ops::TensorType* t = tensor(c);
        return t && t->is_scalar();
      };
      bool found = false;
      for (egraph::ENodeId m : eg.nodes(k)) {
        const OpKind op = g_.kind(m);
        const bool stack = op == OpKind::Stack || op == OpKind::ExpandDims;
        if (!stack || g_.attrs(m).get<std::int64_t>(AttrKey::Axis) != 0 ||
            !std::ranges::all_of(eg.children(m), is_scalar))
          continue;
        scalars.insert(scalars.end(), eg.children(m).begin(), eg.children(m).end());
        found = true;
        break;
      }
      if (!found) return std::nullopt;
    }
    const std::optional<EClassId> out =
        g_.add_op(OpKind::Stack, {{AttrKey::Axis, std::int64_t{0}}}, scalars);
    const ops::TensorType* want = tensor(eg.class_of(n));
    if (!out || !tensor(*out) || !want || *tensor(*out) != *want) return std::nullopt;
    return out;
  }

  std::optional<EClassId> cast(const Node& n) {
    if (n.x.dtype == n.y.dtype) return n.kids[0];
    return std::nullopt;
  }

  // The roots of the rewrite, each with the identity it checks.
  struct Identity {
    OpKind root;
    std::optional<EClassId> (ShapeIdentityApplier::*when)(const Node&);
  };
  static constexpr Identity kIdentities[] = {
      {OpKind::Slice, &ShapeIdentityApplier::slice},
      {OpKind::Reshape, &ShapeIdentityApplier::same_shape},
      {OpKind::BroadcastTo, &ShapeIdentityApplier::same_shape},
      {OpKind::Transpose, &ShapeIdentityApplier::transpose},
      {OpKind::Flip, &ShapeIdentityApplier::flip},
      {OpKind::SetSlice, &ShapeIdentityApplier::set_slice},
      {OpKind::IncSlice, &ShapeIdentityApplier::inc_slice},
      {OpKind::Concat, &ShapeIdentityApplier::concat},
      {OpKind::Cast, &ShapeIdentityApplier::cast},
  };

 public:
  // The ops the rewrite's searcher finds.
  static std::vector<OpKind> roots() {
    std::vector<OpKind> r;
    for (const Identity& i : kIdentities) r.push_back(i.root);
    return r;
  }

 private:
  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_shape_identities(TensorEGraph& g) {
  return egraph::Rewrite("shape-identities",
                         std::make_shared<OpClassSearcher>(ShapeIdentityApplier::roots(),
                                                           "(slice|reshape|transpose|cast|... ?x)"),
                         std::make_shared<ShapeIdentityApplier>(g));
}

}  // namespace eqsat::rules
