#include "rules/loops/scan_to_reduction.hpp"

#include "rules/loops/scan_form_memo.hpp"
#include "rules/loops/scan_prune.hpp"
#include "rules/loops/scan_pushout_batch.hpp"
#include "rules/tensor/substitute.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ENodeId;
using ops::AttrKey;
using ops::OpKind;
using ops::TermRef;

namespace {

// The reduction that accumulates with `op` (the catalogue's folds), and
// sub's: h - f0 - f1 ... = h - (f0 + f1 + ...), the state first.
std::optional<OpKind> reduction_of(OpKind op) {
  return op == OpKind::Sub ? std::optional(OpKind::Sum) : ops::folding_reduction(op);
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
      // A loop that may run no step: its last row's read fails there, and
      // the closed form would be a value (decision 13). Not left to the
      // may-fail check, which lets it through where the closed form may
      // fail for a reason of its own (an initial state read at a run-time
      // index).
      const std::int64_t rows = std::get<ops::TensorType>(g().type(got)).dims[0];
      if (rows == ops::kUnknownDim || rows == 0) continue;
      const std::vector<ENodeId> readers(eg.parents(got).begin(), eg.parents(got).end());
      std::optional<EClassId> value;
      bool tried = false;
      for (ENodeId q : readers) {
        if (!reads_last_step(q, got)) continue;
        if (!tried) {
          value = memoized_reduction(s, j, root);
          tried = true;
        }
        if (!value) break;
        changed |= merge_same(g(), eg.class_of(q), value);
      }
    }
    changed |= std::exchange(merged_outputs_, false);
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

  // reduction(s, j, root), once per loop form and sit-sot.
  std::optional<EClassId> memoized_reduction(const ScanView& s, std::size_t j, EClassId root) {
    auto& value = reductions_.get(s, j, [&] { return reduction(s, j, root); });
    if (value) value = g().egraph().find(*value);
    return value;
  }

  // The last state of sit-sot output j as a reduction, when its body
  // output accumulates a function of the sequences that vectorizes.
  std::optional<EClassId> reduction(const ScanView& s, std::size_t j, EClassId root) {
    const std::int64_t state = s.sitsot_param(j - s.num_mitsot());
    const TermRef out = s.body_output(j);
    // A state carried unchanged (in some form of its class) ends as it started.
    const std::vector<EClassId> outs = body_outputs(g(), s.operands[0]);
    if (j < outs.size() &&
        is_parameter(g(), outs[j], state, s.params()[static_cast<std::size_t>(state)]))
      return s.operands[s.sitsot_operand(j - s.num_mitsot())];
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
    if (std::ranges::binary_search(f->free_nominals(), state)) return std::nullopt;
    if (invariant(s, f)) return repeated(s, j, f, state_first);
    // f's values at every step, stacked, are what the loop accumulates.
    StepBatcher batch(g(), s);
    batch.allow_invariant_work();
    if (!batch.ok()) return std::nullopt;
    const auto all =
        batch.classify(f) == Batch::PerStep ? batch.add(f) : through_outputs(batch, s, root, j, f);
    if (!all) return std::nullopt;
    const std::array one{*all};
    const auto reduced = g().add_op(*reduce, {{AttrKey::Axis, ops::IntList{0}}}, one);
    if (!reduced) return std::nullopt;
    const EClassId init = s.operands[s.sitsot_operand(j - s.num_mitsot())];
    const std::array pair = state_first ? std::array{init, *reduced} : std::array{*reduced, init};
    return g().add_op(out->kind(), {}, pair);
  }

  // f's values at every step when f reads other states: the parts of f
  // that do not vectorize become nit-sots of the loop (a copy of it with
  // them as extra outputs, unless it returns them already), and f is
  // built outside from their stacked values (PyTensor's push-out-add:
  // Σₜ xₜ·δₜᵀ becomes Xᵀ·Δ with Δ returned by the loop). The values are
  // read from that loop without state j when nothing else needs it, so
  // that a loop accumulating several such sums sheds them one by one.
  // `batch` is the loop's batcher; it learns the new outputs.
  std::optional<EClassId> through_outputs(StepBatcher& batch, const ScanView& s, EClassId root,
                                          std::size_t j, TermRef f) {
    std::vector<TermRef> cuts;
    // Only where a product gains: an elementwise sum of returned values
    // would store every step to save an add per step.
    if (!find_cuts(batch, f, cuts)) return std::nullopt;
    std::vector<std::pair<TermRef, std::size_t>> outputs;
    std::vector<TermRef> missing;
    for (TermRef c : cuts) {
      std::optional<std::size_t> at;
      for (std::size_t k = s.num_mitsot() + s.num_sitsot(); k < s.num_outputs() && !at; ++k)
        if (s.body_output(k) == c) at = k;
      if (at)
        outputs.emplace_back(c, *at);
      else
        missing.push_back(c);
    }
    ScanView v = s;
    if (!missing.empty()) {
      const auto wider = with_outputs(s, missing);
      if (!wider) return std::nullopt;
      for (std::size_t k = 0; k < missing.size(); ++k)
        outputs.emplace_back(missing[k], s.num_outputs() + k);
      v = *wider;
    }
    EClassId loop = root;
    if (const auto lean = without_output(root, v, j)) {
      loop = lean->scan;
      for (auto& [c, k] : outputs) k = static_cast<std::size_t>(lean->index_of[k]);
    } else if (!missing.empty()) {
      const auto wide = add_loop(root, s.num_outputs(), v);
      if (!wide) return std::nullopt;
      loop = *wide;
    }
    batch.read_outputs(loop, outputs);
    if (batch.classify(f) != Batch::PerStep) return std::nullopt;
    return batch.add(f);
  }

  // Loop `v` (loop `root`, maybe with outputs appended) without output j,
  // added, when no other output needs state j: root's other outputs are
  // merged with their reads of it; nullopt when j cannot go.
  std::optional<PrunedLoop> without_output(EClassId root, const ScanView& v, std::size_t j) {
    std::set<std::size_t> rest;
    for (std::size_t k = 0; k < v.num_outputs(); ++k)
      if (k != j) rest.insert(k);
    auto lean = prune_loop(g(), v, rest);
    if (!lean || lean->index_of[j] >= 0 ||
        std::ranges::any_of(rest, [&](std::size_t k) { return lean->index_of[k] < 0; }))
      return std::nullopt;
    merged_outputs_ |= merge_kept_outputs(g(), root, *lean);
    return lean;
  }

  // The subterms of f that become loop outputs: descending through linear
  // ops (sums, dot, axis moves, a product with one invariant factor, a sum
  // with a part that vectorizes), every maximal part that does not. True
  // when a `dot` was crossed.
  static bool find_cuts(StepBatcher& probe, TermRef f, std::vector<TermRef>& cuts) {
    bool dot = false;
    ops::for_each_post_order(
        f, ops::Bodies::Enter, [](TermRef) {},
        [&](TermRef t) {
          if (probe.classify(t) != Batch::No) return false;
          const bool descend = linear(probe, t);
          if (!descend) cuts.push_back(t);
          dot |= descend && t->kind() == OpKind::Dot;
          return descend;
        });
    return dot;
  }

  // True when find_cuts goes through t: its value is linear in its
  // operands' step values (the catalogue's Linear and Bilinear ops), and
  // stacking them gives its stacked value.
  static bool linear(StepBatcher& probe, TermRef t) {
    const auto kind_of = [&](std::size_t i) { return probe.classify(t->operand(i)); };
    if (ops::is_bilinear(t->kind())) {
      // A contraction of two stacked factors is one product; an elementwise
      // product gains only with one invariant factor.
      if (t->info().group == ops::OpGroup::LinAlg) return true;
      return kind_of(0) == Batch::Invariant || kind_of(1) == Batch::Invariant;
    }
    if (!ops::is_linear(t->kind()) || !StepBatcher::batches(t->kind())) return false;
    if (t->arity() == 1) return true;
    // One returned value, not one per operand, when no operand vectorizes;
    // concat and stack batch stacked operands only.
    bool vectorizes = false, invariant = false;
    for (std::size_t i = 0; i < t->arity(); ++i) {
      vectorizes |= kind_of(i) != Batch::No;
      invariant |= kind_of(i) == Batch::Invariant;
    }
    return vectorizes && (ops::is_elementwise(t->kind()) || !invariant);
  }

  // Loop `s` with `extra` appended to its nit-sots, as a view: its body is
  // added, the loop is not (add_loop adds it).
  std::optional<ScanView> with_outputs(const ScanView& s, std::span<const TermRef> extra) {
    std::vector<EClassId> outs = body_outputs(g(), s.operands[0]);
    if (outs.size() != s.num_outputs()) return std::nullopt;
    for (TermRef t : extra) outs.push_back(g().add_term(t));
    const auto body =
        add_body(g(), s.fn->attrs().get<std::vector<ops::TensorType>>(AttrKey::Params), outs);
    if (!body) return std::nullopt;
    ScanView v = s;
    v.spec.num_nitsot += static_cast<std::int64_t>(extra.size());
    if (!v.spec.keep.empty()) v.spec.keep.resize(v.spec.keep.size() + extra.size(), 0);
    v.operands[0] = *body;
    v.fn = g().data(*body).rep;
    return v;
  }

  // Adds loop `v`, whose first `n` outputs are those of loop `root`, and
  // merges them with root's.
  std::optional<EClassId> add_loop(EClassId root, std::size_t n, const ScanView& v) {
    const auto wider = add_scan(g(), v.attrs, v.spec, v.operands);
    if (!wider) return std::nullopt;
    PrunedLoop same{*wider, {}};
    for (std::size_t i = 0; i < n; ++i) same.index_of.push_back(static_cast<std::int64_t>(i));
    merged_outputs_ |= merge_kept_outputs(g(), root, same);
    return g().egraph().find(*wider);
  }

  // True when f reads only non-sequences and constants.
  static bool invariant(const ScanView& s, TermRef f) {
    const auto& free = f->free_nominals();
    return free.empty() || free.front() >= s.nonsequence_param(0);
  }

  // The last state when every step accumulates the same value v, n steps
  // (the :n-steps, or the sequences' static length; at least one, see
  // rewrite): h0 + n·v, h0 − n·v, h0·vⁿ (floats), max(h0, v), min(h0, v).
  // PyTensor's first scan example, A**k by repeated products, is h0·Aᵏ.
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
    if (out->kind() != OpKind::Add && out->kind() != OpKind::Sub && out->kind() != OpKind::Mul)
      return std::nullopt;  // logaddexp: no closed form here
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

  FormMemo<std::size_t, std::optional<EClassId>> reductions_;
  bool merged_outputs_ = false;  // without_output or add_loop merged classes in this rewrite
};

}  // namespace

egraph::Rewrite make_scan_to_reduction(TensorEGraph& g) {
  return make_scan_rewrite("scan-to-reduction", std::make_shared<ToReduction>(g));
}

}  // namespace eqsat::rules
