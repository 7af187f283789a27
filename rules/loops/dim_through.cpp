#include "rules/loops/dim_through.hpp"

#include "rules/loops/scan_view.hpp"
#include "rules/tensor/op_class_searcher.hpp"
#include "rules/tensor/substitute.hpp"

#include "ops/run_time_failure.hpp"

#include <array>
#include <optional>
#include <utility>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ENodeId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// Looks at every e-node making a `dim`'s operand: any of them may say the
// length without computing the array (see dim_through.hpp).
class DimThroughApplier final : public egraph::Applier {
 public:
  explicit DimThroughApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (ENodeId n : nodes) {
      if (g_.kind(n) != OpKind::Dim) continue;
      const EClassId x = eg.find(eg.children(n)[0]);
      const auto* t = std::get_if<ops::TensorType>(&g_.type(x));
      std::int64_t axis = g_.attrs(n).get<std::int64_t>(AttrKey::Axis);
      if (!t) continue;
      if (axis < 0) axis += static_cast<std::int64_t>(t->dims.size());
      const std::vector<ENodeId> makers(eg.nodes(x).begin(), eg.nodes(x).end());
      for (ENodeId m : makers) {
        const auto same = through(m, axis);
        if (same && eg.find(*same) == eg.find(root)) continue;
        if (same && merge_same(g_, root, same)) {
          changed = true;
          continue;
        }
        // Refused (m's broadcasting may fail) or no single operand says it.
        if (ops::is_elementwise(g_.kind(m))) changed |= merge_same(g_, root, broadcast(m, axis));
      }
    }
    return changed;
  }
  std::string to_string() const override { return "dim-through"; }

 private:
  std::optional<EClassId> dim(EClassId x, std::int64_t axis) {
    if (axis < 0) return std::nullopt;
    return g_.add_op(OpKind::Dim, {{AttrKey::Axis, axis}}, std::array{x});
  }

  // The length of `axis` of e-node m's value, read from m's operands:
  // elementwise ops by their group, the ops of kThrough each its own way;
  // through any other op the rewrite does not apply.
  std::optional<EClassId> through(ENodeId m, std::int64_t axis) {
    // broadcast_like broadcasts its operands as an elementwise op does.
    if (ops::is_elementwise(g_.kind(m)) || g_.kind(m) == OpKind::BroadcastLike)
      return through_elementwise(m, axis);
    for (const auto& [kind, how] : kThrough)
      if (kind == g_.kind(m)) return (this->*how)(m, axis);
    return std::nullopt;
  }

  // index x i with a scalar i: x's axis + 1.
  std::optional<EClassId> through_index(ENodeId m, std::int64_t axis) {
    const egraph::EGraph& eg = g_.egraph();
    const auto* i = std::get_if<ops::TensorType>(&g_.type(eg.children(m)[1]));
    if (!i || !i->dims.empty()) return std::nullopt;
    return dim(eg.find(eg.children(m)[0]), axis + 1);
  }

  // expand_dims x at: x's axes around the inserted one.
  std::optional<EClassId> through_expand_dims(ENodeId m, std::int64_t axis) {
    const egraph::EGraph& eg = g_.egraph();
    const std::int64_t at = g_.attrs(m).get<std::int64_t>(AttrKey::Axis);
    if (axis == at) return std::nullopt;  // 1, which the analysis knows
    return dim(eg.find(eg.children(m)[0]), axis < at ? axis : axis - 1);
  }

  // resize_rows x n: n rows, x's other axes.
  std::optional<EClassId> through_resize_rows(ENodeId m, std::int64_t axis) {
    const egraph::EGraph& eg = g_.egraph();
    if (axis == 0) return eg.find(eg.children(m)[1]);
    return dim(eg.find(eg.children(m)[0]), axis);
  }

  // An output of a loop: its rows are the steps (not read here).
  std::optional<EClassId> through_get(ENodeId m, std::int64_t axis) {
    if (axis == 0) return std::nullopt;
    return through_loop(g_.egraph().find(g_.egraph().children(m)[0]),
                        static_cast<std::size_t>(g_.attrs(m).get<std::int64_t>(AttrKey::Index)),
                        axis);
  }

  // The ops other than elementwise ones whose lengths the rewrite reads
  // from their operands, each with how; a new op is simply not rewritten
  // through (ops/README.md, "Code that knows a few ops").
  using Through = std::optional<EClassId> (DimThroughApplier::*)(ENodeId, std::int64_t);
  static constexpr std::pair<OpKind, Through> kThrough[] = {
      {OpKind::Index, &DimThroughApplier::through_index},
      {OpKind::ExpandDims, &DimThroughApplier::through_expand_dims},
      {OpKind::ResizeRows, &DimThroughApplier::through_resize_rows},
      {OpKind::Get, &DimThroughApplier::through_get},
  };

  // The length of `axis` of an elementwise op's result: that of the one
  // operand covering the axis where every other operand is shorter in rank
  // or of static length 1 there (broadcasting leaves its length).
  std::optional<EClassId> through_elementwise(ENodeId m, std::int64_t axis) {
    const egraph::EGraph& eg = g_.egraph();
    const std::vector<EClassId> kids(eg.children(m).begin(), eg.children(m).end());
    const auto* out = std::get_if<ops::TensorType>(&g_.type(eg.class_of(m)));
    if (!out) return std::nullopt;
    // Operand k's axis aligned with the result's `axis` (NumPy aligns the
    // trailing axes), negative when k has no such axis.
    auto aligned = [&](const ops::TensorType& t) {
      return axis - static_cast<std::int64_t>(out->dims.size() - t.dims.size());
    };
    std::optional<std::size_t> covering;
    for (std::size_t k = 0; k < kids.size(); ++k) {
      const auto* t = std::get_if<ops::TensorType>(&g_.type(kids[k]));
      if (!t) return std::nullopt;
      const std::int64_t a = aligned(*t);
      if (a < 0 || t->dims[static_cast<std::size_t>(a)] == 1) continue;
      if (covering) return std::nullopt;  // two operands may set the length
      covering = k;
    }
    if (!covering) return std::nullopt;  // 1, which the analysis knows
    // The other operands are not computed: none may fail.
    for (std::size_t k = 0; k < kids.size(); ++k)
      if (k != *covering && g_.data(kids[k]).may_fail) return std::nullopt;
    const auto& t = std::get<ops::TensorType>(g_.type(kids[*covering]));
    return dim(eg.find(kids[*covering]), aligned(t));
  }

  // The length of `axis` of elementwise op m's result as that of its
  // operands broadcast together (broadcast_like folded over them): fails
  // exactly where m's broadcasting does, so only for an op that fails in no
  // other way (it provably succeeds on scalars of its operands' dtypes).
  std::optional<EClassId> broadcast(ENodeId m, std::int64_t axis) {
    const egraph::EGraph& eg = g_.egraph();
    const std::vector<EClassId> kids(eg.children(m).begin(), eg.children(m).end());
    if (kids.size() < 2) return std::nullopt;
    std::vector<ops::Type> scalars;
    for (EClassId k : kids) {
      const auto* t = std::get_if<ops::TensorType>(&g_.type(k));
      if (!t) return std::nullopt;
      scalars.emplace_back(ops::TensorType{t->dtype, {}});
    }
    std::vector<const ops::Type*> types;
    for (const ops::Type& t : scalars) types.push_back(&t);
    const std::vector<const ops::Array*> values(kids.size(), nullptr);
    if (ops::may_fail(g_.kind(m), g_.attrs(m), types, values)) return std::nullopt;
    std::optional<EClassId> b = eg.find(kids[0]);
    for (std::size_t k = 1; k < kids.size() && b; ++k)
      b = g_.add_op(OpKind::BroadcastLike, {}, std::array{*b, eg.find(kids[k])});
    return b ? dim(*b, axis) : std::nullopt;
  }

  // Axis `axis` (>= 1) of output k of the loops in class `loop`.
  std::optional<EClassId> through_loop(EClassId loop, std::size_t k, std::int64_t axis) {
    const std::vector<ENodeId> scans(g_.egraph().nodes(loop).begin(),
                                     g_.egraph().nodes(loop).end());
    for (ENodeId n : scans) {
      const auto s = view_scan(g_, n);
      if (!s || k >= s->num_outputs()) continue;
      if (k < s->num_mitsot()) return dim(s->operands[s->mitsot_operand(k)], axis);
      if (k < s->num_mitsot() + s->num_sitsot())
        return dim(s->operands[s->sitsot_operand(k - s->num_mitsot())], axis - 1);
      const std::vector<EClassId> outs = body_outputs(g_, s->operands[0]);
      if (k >= outs.size()) continue;
      for (ENodeId p : g_.egraph().nodes(outs[k]))
        if (g_.kind(p) == OpKind::Nominal)
          if (const auto d = parameter_dim(*s, g_.attrs(p).get<std::int64_t>(AttrKey::Slot), axis))
            return d;
    }
    return std::nullopt;
  }

  // Axis `axis` (>= 1) of a nit-sot returning parameter `slot` at every step.
  std::optional<EClassId> parameter_dim(const ScanView& s, std::int64_t slot, std::int64_t axis) {
    for (std::size_t i = 0; i < s.num_sequences(); ++i)
      for (std::size_t tap = 0; tap < s.spec.sequence_taps[i].size(); ++tap)
        if (s.sequence_param(i, tap) == slot) return dim(s.operands[s.sequence_operand(i)], axis);
    for (std::size_t m = 0; m < s.num_mitsot(); ++m)
      for (std::size_t tap = 0; tap < s.spec.mitsot_taps[m].size(); ++tap)
        if (s.mitsot_param(m, tap) == slot) return dim(s.operands[s.mitsot_operand(m)], axis);
    for (std::size_t i = 0; i < s.num_sitsot(); ++i)
      if (s.sitsot_param(i) == slot) return dim(s.operands[s.sitsot_operand(i)], axis - 1);
    for (std::size_t i = 0; i < s.num_nonsequences(); ++i)
      if (s.nonsequence_param(i) == slot)
        return dim(s.operands[s.nonsequence_operand(i)], axis - 1);
    return std::nullopt;
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_dim_through(TensorEGraph& g) {
  return egraph::Rewrite(
      "dim-through",
      std::make_shared<OpClassSearcher>(std::vector<OpKind>{OpKind::Dim}, "(dim ?x)"),
      std::make_shared<DimThroughApplier>(g));
}

}  // namespace eqsat::rules
