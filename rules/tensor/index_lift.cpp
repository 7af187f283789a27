#include "rules/tensor/index_lift.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include "ops/run_time_failure.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ENodeId;
using ops::AttrKey;
using ops::OpGroup;
using ops::OpKind;

namespace {

// Merges index(Y, i) and slice(Y) with the same read of Y's operands, for
// each e-node of Y an elementwise op, a reduction, a softmax, an
// expand_dims or a transpose.
class IndexLiftApplier final : public egraph::Applier {
 public:
  explicit IndexLiftApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<ENodeId> reads(eg.nodes(root).begin(), eg.nodes(root).end());
    for (ENodeId n : reads) {
      const OpKind k = g_.kind(n);
      if (k != OpKind::Index && k != OpKind::Slice) continue;
      const ops::TensorType* y = tensor(eg.children(n)[0]);
      if (!y || y->rank() == 0) continue;
      // A read that is its operand (a whole slice, merged with it): lifting
      // it through the class's own e-nodes would build reads of reads
      // without end.
      if (eg.find(eg.children(n)[0]) == eg.find(root)) continue;
      Read read{n, k == OpKind::Index ? 0 : axis_of(g_.attrs(n), y->rank())};
      const EClassId yc = eg.children(n)[0];
      // Not a Y read in several places (as PyTensor lifts a read only of a
      // value it is the one client of): Y is computed once, and each read's
      // lifted form would cost a part of its operands beside it. An LSTM
      // step's four gate slices of one sum, lifted, made extraction choose a
      // larger program than the written one, so the optimizer kept the
      // written one and lost every other rewrite.
      if (std::ranges::any_of(eg.parents(yc), [&](ENodeId p) {
            const OpKind pk = g_.kind(p);
            return (pk == OpKind::Index || pk == OpKind::Slice) &&
                   eg.find(eg.class_of(p)) != eg.find(root);
          }))
        continue;
      const std::vector<ENodeId> ops(eg.nodes(yc).begin(), eg.nodes(yc).end());
      for (ENodeId m : ops) {
        if (std::ranges::any_of(eg.children(m), [&](EClassId c) {
              return eg.find(c) == eg.find(root) || eg.find(c) == eg.find(yc);
            }))
          continue;  // a cycle through the read
        const std::optional<EClassId> same = lifted(read, yc, m);
        if (!same || !same_type(*same, root) || drops_check(g_, root, *same)) continue;
        changed |= eg.merge(eg.class_of(n), *same);
      }
    }
    return changed;
  }
  std::string to_string() const override { return "index-lift"; }

 private:
  // The read: an index (of axis 0) or a slice along `axis` of the result.
  struct Read {
    ENodeId node;
    std::int64_t axis;
  };

  const ops::TensorType* tensor(EClassId c) const { return g_.tensor_type(c); }
  bool same_type(EClassId a, EClassId b) const { return g_.same_tensor_type(a, b); }
  static std::int64_t axis_of(const ops::Attrs& a, std::int64_t rank) {
    const std::int64_t axis = a.get_or<std::int64_t>(AttrKey::Axis, 0);
    return axis < 0 ? axis + rank : axis;
  }

  // The same read applied to class c along its axis `axis`.
  std::optional<EClassId> read_of(const Read& r, EClassId c, std::int64_t axis) {
    const egraph::EGraph& eg = g_.egraph();
    if (g_.kind(r.node) == OpKind::Index) {
      if (axis != 0) return row_along(r, c, axis);
      const EClassId kids[] = {c, eg.children(r.node)[1]};
      return g_.add_op(OpKind::Index, {}, kids);
    }
    ops::Attrs attrs = g_.attrs(r.node);
    attrs.set(AttrKey::Axis, axis);
    const EClassId kids[] = {c};
    return g_.add_op(OpKind::Slice, std::move(attrs), kids);
  }

  // c[..., i, ...] along `axis` > 0, as a one-long slice squeezed, for a
  // constant i in range of a static length (the slice cannot check the
  // range the index checks: elsewhere nothing is read).
  std::optional<EClassId> row_along(const Read& r, EClassId c, std::int64_t axis) {
    const TensorData& i = g_.data(g_.egraph().children(r.node)[1]);
    const ops::TensorType* t = tensor(c);
    if (!t || !i.value || !i.is_tensor() || !i.tensor_type().is_scalar()) return std::nullopt;
    const std::int64_t n = t->dims[static_cast<std::size_t>(axis)];
    const std::optional<std::int64_t> at = i.value->integer_element(0);
    if (n < 0 || !at || *at < -n || *at >= n) return std::nullopt;
    const std::int64_t j = *at < 0 ? *at + n : *at;
    const EClassId kids[] = {c};
    const std::optional<EClassId> one = g_.add_op(
        OpKind::Slice, {{AttrKey::Axis, axis}, {AttrKey::Start, j}, {AttrKey::Stop, j + 1}}, kids);
    if (!one) return std::nullopt;
    const EClassId sliced[] = {*one};
    return g_.add_op(OpKind::Squeeze, {{AttrKey::Axis, ops::IntList{axis}}}, sliced);
  }

  // The op of e-node m (in class yc) applied to the read parts of its
  // operands, or nullopt where that is not the same value.
  std::optional<EClassId> lifted(const Read& r, EClassId yc, ENodeId m) {
    const egraph::EGraph& eg = g_.egraph();
    const OpKind k = g_.kind(m);
    const OpGroup group = ops::op_info(k).group;
    const std::vector<EClassId> kids(eg.children(m).begin(), eg.children(m).end());
    std::vector<EClassId> read(kids);
    ops::Attrs attrs = g_.attrs(m);
    if (group == OpGroup::Unary || group == OpGroup::Binary || group == OpGroup::Select) {
      if (fails_by_element(m, kids)) return std::nullopt;
      const TensorData& y = g_.data(yc);
      const std::int64_t rank = y.tensor_type().rank();
      for (std::size_t j = 0; j < kids.size(); ++j) {
        const ops::TensorType* t = tensor(kids[j]);
        if (!t) return std::nullopt;
        const std::int64_t axis = r.axis - (rank - t->rank());
        if (axis < 0) continue;  // broadcasting stretches it along the read axis
        if (!same_length(g_.data(kids[j]), static_cast<std::size_t>(axis), y,
                         static_cast<std::size_t>(r.axis)))
          return std::nullopt;
        const std::optional<EClassId> part = read_of(r, kids[j], axis);
        if (!part) return std::nullopt;
        read[j] = *part;
      }
      return g_.add_op(k, std::move(attrs), read);
    }
    if (group == OpGroup::Reduction) return through_reduction(r, kids[0], std::move(attrs), k);
    if (k == OpKind::ExpandDims || k == OpKind::Transpose)
      return through_view(r, kids[0], std::move(attrs), k);
    if (k == OpKind::Concat && g_.kind(r.node) == OpKind::Index &&
        attrs.get<std::int64_t>(AttrKey::Axis) == 0)
      return from_operand(r, kids);
    if (group == OpGroup::Softmax) {
      const ops::TensorType* x = tensor(kids[0]);
      if (!x) return std::nullopt;
      const std::int64_t a = axis_of(attrs, x->rank());
      if (a == r.axis) return std::nullopt;
      const std::optional<EClassId> part = read_of(r, kids[0], r.axis);
      if (!part) return std::nullopt;
      const bool drops = g_.kind(r.node) == OpKind::Index;
      attrs.set(AttrKey::Axis, drops && a > r.axis ? a - 1 : a);
      const EClassId one[] = {*part};
      return g_.add_op(k, std::move(attrs), one);
    }
    return std::nullopt;
  }

  // reduce(x, A)'s read along result axis r.axis is reduce of x's read
  // along the axis of x it comes from, when A does not reduce that axis.
  std::optional<EClassId> through_reduction(const Read& r, EClassId x, ops::Attrs attrs, OpKind k) {
    const ops::TensorType* xt = tensor(x);
    if (!xt || !attrs.has(AttrKey::Axis)) return std::nullopt;
    const ops::IntList axes = attrs.get<ops::IntList>(AttrKey::Axis);
    const bool keep = attrs.get_or<bool>(AttrKey::Keepdims, false);
    std::vector<std::int64_t> kept;  // x's axis of each result axis
    for (std::int64_t i = 0; i < xt->rank(); ++i)
      if (keep || std::ranges::find(axes, i) == axes.end()) kept.push_back(i);
    if (r.axis >= static_cast<std::int64_t>(kept.size())) return std::nullopt;
    const std::int64_t from = kept[static_cast<std::size_t>(r.axis)];
    if (std::ranges::find(axes, from) != axes.end()) return std::nullopt;
    const std::optional<EClassId> part = read_of(r, x, from);
    if (!part) return std::nullopt;
    if (g_.kind(r.node) == OpKind::Index) {
      ops::IntList shifted;
      for (std::int64_t a : axes) shifted.push_back(a > from ? a - 1 : a);
      attrs.set(AttrKey::Axis, shifted);
    }
    const EClassId one[] = {*part};
    return g_.add_op(k, std::move(attrs), one);
  }

  // expand_dims(x, a)'s read along another axis is expand_dims of x's read;
  // transpose(x, p)'s read along axis j is the transpose of x's read along
  // p[j] (an index only where that is x's first axis).
  std::optional<EClassId> through_view(const Read& r, EClassId x, ops::Attrs attrs, OpKind k) {
    const bool drops = g_.kind(r.node) == OpKind::Index;
    std::int64_t from = r.axis;
    if (k == OpKind::ExpandDims) {
      const std::int64_t a = attrs.get<std::int64_t>(AttrKey::Axis);
      if (a == r.axis) return std::nullopt;
      if (r.axis > a) --from;
      if (drops && a > r.axis) attrs.set(AttrKey::Axis, a - 1);
    } else {
      const ops::IntList perm = attrs.get<ops::IntList>(AttrKey::Perm);
      from = perm[static_cast<std::size_t>(r.axis)];
      if (drops) {
        ops::IntList rest;
        for (std::size_t j = 0; j < perm.size(); ++j)
          if (static_cast<std::int64_t>(j) != r.axis)
            rest.push_back(perm[j] > from ? perm[j] - 1 : perm[j]);
        attrs.set(AttrKey::Perm, rest);
      }
    }
    const std::optional<EClassId> part = read_of(r, x, from);
    if (!part) return std::nullopt;
    const EClassId one[] = {*part};
    return g_.add_op(k, std::move(attrs), one);
  }

  // concat(x₀, x₁, ...)[i] for a constant i and operands of static lengths
  // along axis 0 is the row of the operand holding it (PyTensor's
  // local_subtensor_of_join); where the concat may fail (other lengths
  // unknown) the caller's drops_check keeps it.
  std::optional<EClassId> from_operand(const Read& r, const std::vector<EClassId>& kids) {
    const TensorData& i = g_.data(g_.egraph().children(r.node)[1]);
    if (!i.value || !i.is_tensor() || !i.tensor_type().is_scalar()) return std::nullopt;
    const std::optional<std::int64_t> at = i.value->integer_element(0);
    std::int64_t total = 0;
    for (EClassId k : kids) {
      const ops::TensorType* t = tensor(k);
      if (!t || t->rank() == 0 || t->dims[0] < 0) return std::nullopt;
      total += t->dims[0];
    }
    if (!at || *at < -total || *at >= total) return std::nullopt;
    std::int64_t j = *at < 0 ? *at + total : *at;
    for (EClassId k : kids) {
      const std::int64_t n = tensor(k)->dims[0];
      if (j < n) {
        const EClassId row[] = {k,
                                g_.add_term(ops::Term::scalar(i.tensor_type().dtype, double(j)))};
        return g_.add_op(OpKind::Index, {}, row);
      }
      j -= n;
    }
    return std::nullopt;
  }

  // Whether the elementwise e-node m may fail on single elements (an
  // integer pow with a negative exponent): reading fewer would drop that.
  bool fails_by_element(ENodeId m, const std::vector<EClassId>& kids) const {
    std::vector<ops::Type> scalars;
    for (EClassId k : kids) {
      const ops::TensorType* t = tensor(k);
      if (!t) return true;
      scalars.emplace_back(ops::TensorType{t->dtype, {}});
    }
    std::vector<const ops::Type*> types;
    for (const ops::Type& t : scalars) types.push_back(&t);
    const std::vector<const ops::Array*> values(kids.size(), nullptr);
    return ops::may_fail(g_.kind(m), g_.attrs(m), types, values);
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_index_lift(TensorEGraph& g) {
  return egraph::Rewrite(
      "index-lift",
      std::make_shared<OpClassSearcher>(std::vector<OpKind>{OpKind::Index, OpKind::Slice},
                                        "(index|slice (f ?x ...))"),
      std::make_shared<IndexLiftApplier>(g));
}

}  // namespace eqsat::rules
