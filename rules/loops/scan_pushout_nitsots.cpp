#include "rules/loops/scan_pushout.hpp"
#include "rules/loops/scan_pushout_batch.hpp"

#include "rules/tensor/substitute.hpp"

#include <array>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// (get J s) = the nit-sot's values at every step, computed outside. Also,
// for any loop: a nit-sot returning a state's past value is that state's
// history shifted by its tap, and a sit-sot carried unchanged repeats its
// initial value.
class PushOutNitsots final : public ScanApplier {
 public:
  explicit PushOutNitsots(TensorEGraph& g) : ScanApplier(g, "scan-push-out-nitsots") {}

 private:
  bool depends_only_on_form() const override { return true; }
  bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& s) override {
    const std::vector<EClassId> outs = body_outputs(g(), s.operands[0]);
    if (outs.size() < s.num_outputs()) return false;
    bool changed = false;
    for (std::size_t i = 0; i < s.num_nitsot(); ++i) {
      const std::size_t j = s.num_mitsot() + s.num_sitsot() + i;
      changed |= merge_output(eg, root, s, j, shifted_state(eg, root, s, outs[j]));
    }
    StepBatcher batch(g(), s);
    if (!batch.ok()) return changed;
    for (std::size_t i = 0; i < s.num_sitsot(); ++i) {
      const std::size_t j = s.num_mitsot() + i;
      if (carried_unchanged(s, outs[j], s.sitsot_param(i)))
        changed |= merge_output(eg, root, s, j,
                                repeat_rows(s.operands[s.sitsot_operand(i)], batch.steps()));
    }
    batch.read_state_outputs(root);
    for (std::size_t i = 0; i < s.num_nitsot(); ++i) {
      const std::size_t j = s.num_mitsot() + s.num_sitsot() + i;
      const ops::TermRef out = s.body_output(j);
      const Batch kind = batch.classify(out);
      if (kind == Batch::No) continue;
      auto value = batch.add(out);
      if (value && kind == Batch::Invariant) value = repeat_rows(*value, batch.steps());
      changed |= merge_output(eg, root, s, j, value);
    }
    return changed;
  }

  // Merges output j of the loop (its :keep last rows when set) with
  // `value`, the output's every row computed another way.
  bool merge_output(egraph::EGraph& eg, EClassId root, const ScanView& s, std::size_t j,
                    std::optional<EClassId> value) {
    const std::int64_t keep = s.spec.keep.empty() ? 0 : s.spec.keep[j];
    if (value && keep > 0)
      value = g().add_op(OpKind::Slice, {{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, -keep}},
                         std::array{*value});
    if (!value) return false;
    const auto get =
        g().add_op(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(j)}}, std::array{root});
    if (!get || !ops::compatible(g().data(*get).tensor_type(), g().data(*value).tensor_type()))
      return false;
    return eg.merge(*get, *value);
  }

  // True when body output `out` is parameter `slot` itself.
  bool carried_unchanged(const ScanView& s, EClassId out, std::int64_t slot) {
    return is_parameter(g(), out, slot, s.params()[static_cast<std::size_t>(slot)]);
  }

  // A nit-sot whose body output is a past value of a state storing every
  // step: the state's initial history followed by its history, read from
  // the row of that tap (sit-sot: tap -1), as many rows as steps ran (the
  // stop relative to the end: exact for any trip count, until-loops too).
  std::optional<EClassId> shifted_state(egraph::EGraph& eg, EClassId root, const ScanView& s,
                                        EClassId out) {
    for (std::size_t m = 0; m < s.num_mitsot() + s.num_sitsot(); ++m) {
      if (!s.spec.keep.empty() && s.spec.keep[m] != 0) continue;
      const std::vector<std::int64_t> slots = s.state_params(m);
      for (std::size_t k = 0; k < slots.size(); ++k) {
        if (!carried_unchanged(s, out, slots[k])) continue;
        const bool sitsot = m >= s.num_mitsot();
        const std::int64_t tap = sitsot ? -1 : s.spec.mitsot_taps[m][k];
        std::optional<EClassId> init =
            sitsot ? g().add_op(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{0}}},
                                std::array{s.operands[s.sitsot_operand(m - s.num_mitsot())]})
                   : std::optional{s.operands[s.mitsot_operand(m)]};
        if (!init) return std::nullopt;
        const std::int64_t rows = g().data(*init).tensor_type().dims[0];
        if (rows == ops::kUnknownDim) return std::nullopt;
        const auto history = g().add_op(
            OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(m)}}, std::array{root});
        if (!history) return std::nullopt;
        const auto all = g().add_op(OpKind::Concat, {{AttrKey::Axis, std::int64_t{0}}},
                                    std::array{*init, eg.find(*history)});
        if (!all) return std::nullopt;
        return g().add_op(
            OpKind::Slice,
            {{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, rows + tap}, {AttrKey::Stop, tap}},
            std::array{*all});
      }
    }
    return std::nullopt;
  }

  // `v` repeated along a new leading axis of `steps` rows: broadcast_to
  // when v's shape is static, else a product with a column of ones (exact:
  // x·1 is x for every number, infinities, NaN and -0 included).
  std::optional<EClassId> repeat_rows(EClassId v, std::optional<std::int64_t> steps) {
    const ops::TensorType& t = g().data(v).tensor_type();
    if (!steps) return std::nullopt;
    const auto row =
        g().add_op(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{0}}}, std::array{v});
    if (!row) return std::nullopt;
    ops::IntList shape{*steps};
    if (t.is_static()) {
      shape.insert(shape.end(), t.dims.begin(), t.dims.end());
      return g().add_op(OpKind::BroadcastTo, {{AttrKey::Shape, shape}}, std::array{*row});
    }
    if (!ops::is_float(t.dtype) && !ops::is_integer(t.dtype)) return std::nullopt;
    shape.resize(t.dims.size() + 1, 1);
    const auto ones =
        g().add_op(OpKind::Ones, {{AttrKey::Shape, shape}, {AttrKey::Dtype, t.dtype}}, {});
    if (!ones) return std::nullopt;
    return g().add_op(OpKind::Mul, {}, std::array{*ones, *row});
  }
};

}  // namespace

egraph::Rewrite make_scan_push_out_nitsots(TensorEGraph& g) {
  return make_scan_rewrite("scan-push-out-nitsots", std::make_shared<PushOutNitsots>(g));
}

}  // namespace eqsat::rules
