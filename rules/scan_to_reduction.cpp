#include "scan_to_reduction.hpp"

#include "scan_pushout_batch.hpp"
#include "substitute.hpp"

#include <array>
#include <optional>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ENodeId;
using ops::AttrKey;
using ops::OpKind;
using ops::TermRef;

namespace {

// The reduction that accumulates with `op`, if any.
std::optional<OpKind> reduction_of(OpKind op) {
  switch (op) {
    case OpKind::Add:
    case OpKind::Sub:  // h - f0 - f1 ... = h - (f0 + f1 + ...), the state first
      return OpKind::Sum;
    case OpKind::Mul:
      return OpKind::Prod;
    case OpKind::Maximum:
      return OpKind::Max;
    case OpKind::Minimum:
      return OpKind::Min;
    default:
      return std::nullopt;
  }
}

bool is_nominal(TermRef t, std::int64_t slot) {
  return t->kind() == OpKind::Nominal && t->attrs().get<std::int64_t>(AttrKey::Slot) == slot;
}

class ToReduction final : public ScanApplier {
 public:
  explicit ToReduction(TensorEGraph& g) : ScanApplier(g, "scan-to-reduction") {}

 private:
  bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& s) override {
    if (s.spec.until || s.num_sitsot() == 0) return false;
    bool changed = false;
    const std::vector<ENodeId> gets(eg.parents(root).begin(), eg.parents(root).end());
    for (ENodeId p : gets) {
      if (g().kind(p) != OpKind::Get) continue;
      const auto j = static_cast<std::size_t>(g().attrs(p).get<std::int64_t>(AttrKey::Index));
      if (j < s.num_mitsot() || j >= s.num_mitsot() + s.num_sitsot()) continue;
      const EClassId got = eg.class_of(p);
      const std::vector<ENodeId> readers(eg.parents(got).begin(), eg.parents(got).end());
      std::optional<EClassId> value;
      bool tried = false;
      for (ENodeId q : readers) {
        if (!reads_last_step(q, got)) continue;
        if (!tried) {
          value = reduction(s, j);
          tried = true;
        }
        if (!value) break;
        changed |= merge_same(g(), eg.class_of(q), value);
      }
    }
    return changed;
  }

  // True when `q` is `(index out -1)`, or the index of out's last row.
  bool reads_last_step(ENodeId q, EClassId out) const {
    const egraph::EGraph& eg = g().egraph();
    if (g().kind(q) != OpKind::Index || eg.find(eg.children(q)[0]) != out) return false;
    const auto& u = g().data(eg.children(q)[1]).uniform;
    const ops::Dims& d = std::get<ops::TensorType>(g().type(out)).dims;
    return u && (*u == -1 || (d[0] != ops::kUnknownDim && *u == static_cast<double>(d[0] - 1)));
  }

  // The last state of sit-sot output j as a reduction, when its body
  // output accumulates a function of the sequences that vectorizes.
  std::optional<EClassId> reduction(const ScanView& s, std::size_t j) {
    const std::int64_t state = s.sitsot_param(j - s.num_mitsot());
    const TermRef out = s.body_output(j);
    const auto reduce = reduction_of(out->kind());
    if (!reduce) return std::nullopt;
    const bool state_first = is_nominal(out->operand(0), state);
    if (!state_first && (out->kind() == OpKind::Sub || !is_nominal(out->operand(1), state)))
      return std::nullopt;
    const TermRef f = out->operand(state_first ? 1 : 0);
    const ops::DType dtype = out->tensor_type().dtype;
    if (f->tensor_type().dtype != dtype) return std::nullopt;
    if (*reduce == OpKind::Sum || *reduce == OpKind::Prod)
      if (!ops::is_float(dtype) && !ops::is_integer(dtype)) return std::nullopt;
    // f reads no state and varies along the steps: its values at every
    // step, stacked, are what the loop accumulates.
    StepBatcher batch(g(), s);
    batch.allow_invariant_work();
    if (invariant(s, f)) return repeated(s, j, f, state_first);
    if (!batch.ok() || batch.classify(f) != Batch::PerStep) return std::nullopt;
    const auto all = batch.add(f);
    if (!all) return std::nullopt;
    const std::array one{*all};
    const auto reduced = g().add_op(*reduce, {{AttrKey::Axis, ops::IntList{0}}}, one);
    if (!reduced) return std::nullopt;
    const EClassId init = s.operands[s.sitsot_operand(j - s.num_mitsot())];
    const std::array pair = state_first ? std::array{init, *reduced} : std::array{*reduced, init};
    return g().add_op(out->kind(), {}, pair);
  }

  // True when f reads only non-sequences and constants.
  static bool invariant(const ScanView& s, TermRef f) {
    const auto& free = f->free_nominals();
    return free.empty() || free.front() >= s.nonsequence_param(0);
  }

  // The last state when every step accumulates the same value v, n steps
  // (the constant or run-time :n-steps, or the sequences' static length):
  // h0 + n·v, h0 − n·v, h0·vⁿ (floats), max(h0, v), min(h0, v). PyTensor's
  // first scan example, A**k by repeated products, is h0·Aᵏ. With no step
  // the loop's read fails, so n >= 1 may be assumed.
  std::optional<EClassId> repeated(const ScanView& s, std::size_t j, TermRef f, bool state_first) {
    const TermRef out = s.body_output(j);
    const ops::DType dtype = out->tensor_type().dtype;
    std::vector<EClassId> outside(static_cast<std::size_t>(s.num_params()));
    for (std::size_t i = 0; i < s.num_nonsequences(); ++i)
      outside[static_cast<std::size_t>(s.nonsequence_param(i))] =
          s.operands[s.nonsequence_operand(i)];
    const auto v = instantiate(g(), f, outside);
    if (!v) return std::nullopt;
    const EClassId init = s.operands[s.sitsot_operand(j - s.num_mitsot())];
    auto op = [&](OpKind k, ops::Attrs attrs, auto... xs) {
      return g().add_op(k, std::move(attrs), std::array{xs...});
    };
    if (out->kind() == OpKind::Maximum || out->kind() == OpKind::Minimum)
      return state_first ? op(out->kind(), {}, init, *v) : op(out->kind(), {}, *v, init);
    if (out->kind() == OpKind::Mul && !ops::is_float(dtype)) return std::nullopt;
    std::optional<EClassId> n;
    if (s.spec.has_n_steps) {
      n = s.operands[s.n_steps_operand()];
    } else if (const auto steps = sequence_steps(g(), s)) {
      n = g().add_term(ops::Term::scalar(ops::DType::I64, static_cast<double>(*steps)));
    }
    if (!n) return std::nullopt;
    const auto count = op(OpKind::Cast, {{AttrKey::Dtype, dtype}}, *n);
    if (!count) return std::nullopt;
    const auto total = out->kind() == OpKind::Mul ? op(OpKind::Pow, {}, *v, *count)
                                                  : op(OpKind::Mul, {}, *count, *v);
    if (!total) return std::nullopt;
    return state_first ? op(out->kind(), {}, init, *total) : op(out->kind(), {}, *total, init);
  }
};

}  // namespace

egraph::Rewrite make_scan_to_reduction(TensorEGraph& g) {
  return make_scan_rewrite("scan-to-reduction", std::make_shared<ToReduction>(g));
}

}  // namespace eqsat::rules
