#include "scan_pushout.hpp"
#include "scan_pushout_batch.hpp"

#include <array>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// (get J s) = the nit-sot's values at every step, computed outside.
class PushOutNitsots final : public ScanApplier {
 public:
  explicit PushOutNitsots(TensorEGraph& g) : ScanApplier(g, "scan-push-out-nitsots") {}

 private:
  bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& s) override {
    StepBatcher batch(g(), s);
    if (!batch.ok()) return false;
    batch.read_state_outputs(root);
    bool changed = false;
    for (std::size_t i = 0; i < s.num_nitsot(); ++i) {
      const std::size_t j = s.num_mitsot() + s.num_sitsot() + i;
      const ops::TermRef out = s.body_output(j);
      const Batch kind = batch.classify(out);
      if (kind == Batch::No) continue;
      auto value = batch.add(out);
      if (value && kind == Batch::Invariant) value = broadcast(*value, batch.steps());
      const std::int64_t keep = s.spec.keep.empty() ? 0 : s.spec.keep[j];
      if (value && keep > 0)
        value =
            g().add_op(OpKind::Slice, {{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, -keep}},
                       std::array{*value});
      if (!value) continue;
      const auto get = g().add_op(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(j)}},
                                  std::array{root});
      if (!get || !ops::compatible(g().data(*get).tensor_type(), g().data(*value).tensor_type()))
        continue;
      changed |= eg.merge(*get, *value);
    }
    return changed;
  }

  // `v` repeated along a new leading axis of `steps` rows (static shapes only).
  std::optional<EClassId> broadcast(EClassId v, std::optional<std::int64_t> steps) {
    const ops::TensorType& t = g().data(v).tensor_type();
    if (!steps || !t.is_static()) return std::nullopt;
    ops::IntList shape{*steps};
    shape.insert(shape.end(), t.dims.begin(), t.dims.end());
    const auto row =
        g().add_op(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{0}}}, std::array{v});
    if (!row) return std::nullopt;
    return g().add_op(OpKind::BroadcastTo, {{AttrKey::Shape, shape}}, std::array{*row});
  }
};

}  // namespace

egraph::Rewrite make_scan_push_out_nitsots(TensorEGraph& g) {
  return make_scan_rewrite("scan-push-out-nitsots", std::make_shared<PushOutNitsots>(g));
}

}  // namespace eqsat::rules
