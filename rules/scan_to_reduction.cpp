#include "scan_to_reduction.hpp"

#include "scan_view.hpp"
#include "substitute.hpp"

#include <array>
#include <optional>
#include <unordered_map>
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

bool elementwise(OpKind k) {
  const ops::OpGroup group = ops::op_info(k).group;
  return group == ops::OpGroup::Unary || group == ops::OpGroup::Binary ||
         group == ops::OpGroup::Select;
}

// Adds a body-level term vectorized over the steps: a parameter of a
// sequence tap becomes the rows that tap reads (`rows[slot]`), a term that
// reads no sequence is computed outside (its non-sequences bound to the
// loop's inputs), and an elementwise op applies to the vectorized operands,
// a varying operand of lower rank than the result getting unit axes after
// its leading one so that it broadcasts along its own axes.
class Vectorizer {
 public:
  Vectorizer(TensorEGraph& g, std::vector<EClassId> rows, std::vector<EClassId> outside)
      : g_(g), rows_(std::move(rows)), outside_(std::move(outside)) {}

  // The class of `t` and whether it varies along the steps.
  std::optional<std::pair<EClassId, bool>> add(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    const auto out = build(t);
    if (out) memo_.emplace(t, *out);
    return out;
  }

 private:
  bool varies(TermRef t) const {
    for (std::int64_t slot : t->free_nominals())
      if (static_cast<std::size_t>(slot) < rows_.size() && rows_[slot].valid()) return true;
    return false;
  }

  std::optional<std::pair<EClassId, bool>> build(TermRef t) {
    if (!varies(t)) {
      const auto c = instantiate(g_, t, outside_);
      if (!c) return std::nullopt;
      return std::pair{*c, false};
    }
    if (t->kind() == OpKind::Nominal)
      return std::pair{rows_[t->attrs().get<std::int64_t>(AttrKey::Slot)], true};
    if (!elementwise(t->kind())) return std::nullopt;
    const std::int64_t rank = t->tensor_type().rank();
    std::vector<EClassId> kids;
    for (TermRef o : t->operands()) {
      const auto v = add(o);
      if (!v) return std::nullopt;
      EClassId k = v->first;
      if (v->second)
        for (std::int64_t r = o->tensor_type().rank(); r < rank; ++r) {
          const std::array one{k};
          const auto e = g_.add_op(OpKind::ExpandDims, {{AttrKey::Axis, std::int64_t{1}}}, one);
          if (!e) return std::nullopt;
          k = *e;
        }
      kids.push_back(k);
    }
    const auto c = g_.add_op(t->kind(), t->attrs(), kids);
    if (!c) return std::nullopt;
    return std::pair{*c, true};
  }

  TensorEGraph& g_;
  std::vector<EClassId> rows_;     // per body slot: the rows of a sequence tap, else invalid
  std::vector<EClassId> outside_;  // per body slot: a non-sequence's input, else invalid
  std::unordered_map<TermRef, std::optional<std::pair<EClassId, bool>>> memo_;
};

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
  // output accumulates an elementwise function of the sequences.
  std::optional<EClassId> reduction(const ScanView& s, std::size_t j) {
    const std::int64_t state = s.sitsot_param(j - s.num_mitsot());
    const TermRef out = s.body_output(j);
    const auto reduce = reduction_of(out->kind());
    if (!reduce) return std::nullopt;
    const bool state_first = is_nominal(out->operand(0), state);
    if (!state_first && !is_nominal(out->operand(1), state)) return std::nullopt;
    const TermRef f = out->operand(state_first ? 1 : 0);
    const ops::DType dtype = out->tensor_type().dtype;
    if (f->tensor_type().dtype != dtype) return std::nullopt;
    if (out->kind() == OpKind::Add || out->kind() == OpKind::Mul)
      if (!ops::is_float(dtype) && !ops::is_integer(dtype)) return std::nullopt;
    // f reads no state (mit-sot or sit-sot parameters) and some sequence.
    const std::int64_t first_state = s.mitsot_param(0, 0), first_nonseq = s.nonsequence_param(0);
    bool reads_sequence = false;
    for (std::int64_t slot : f->free_nominals()) {
      if (slot >= first_state && slot < first_nonseq) return std::nullopt;
      reads_sequence |= slot < first_state;
    }
    if (!reads_sequence) return std::nullopt;

    const auto params = static_cast<std::size_t>(s.num_params());
    std::vector<EClassId> rows(params), outside(params);
    for (std::size_t i = 0; i < s.num_nonsequences(); ++i)
      outside[static_cast<std::size_t>(s.nonsequence_param(i))] =
          s.operands[s.nonsequence_operand(i)];
    if (!sequence_rows(s, rows)) return std::nullopt;
    Vectorizer vec(g(), std::move(rows), std::move(outside));
    const auto all = vec.add(f);
    if (!all || !all->second) return std::nullopt;
    const std::array one{all->first};
    const auto reduced = g().add_op(*reduce, {{AttrKey::Axis, ops::IntList{0}}}, one);
    if (!reduced) return std::nullopt;
    const EClassId init = s.operands[s.sitsot_operand(j - s.num_mitsot())];
    const std::array pair = state_first ? std::array{init, *reduced} : std::array{*reduced, init};
    return g().add_op(out->kind(), {}, pair);
  }

  // For each sequence tap's parameter slot, the rows its steps read: the
  // sequence sliced to [tap, tap + steps). The steps must be known, or
  // follow from a single sequence (then the slice stops `deepest - tap`
  // rows before its end).
  bool sequence_rows(const ScanView& s, std::vector<EClassId>& rows) {
    std::optional<std::int64_t> steps;
    if (s.spec.has_n_steps) {
      const auto& u = g().data(s.operands[s.n_steps_operand()]).uniform;
      if (!u) return false;
      steps = static_cast<std::int64_t>(*u);
    } else {
      steps = sequence_steps(g(), s);
      if (!steps && s.num_sequences() != 1) return false;
    }
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      const ops::IntList& taps = s.spec.sequence_taps[i];
      const EClassId seq = s.operands[s.sequence_operand(i)];
      const ops::Dims& dims = std::get<ops::TensorType>(g().type(seq)).dims;
      for (std::size_t k = 0; k < taps.size(); ++k) {
        const bool whole = taps[k] == 0 && (steps ? dims[0] == *steps : taps.back() == 0);
        if (whole) {
          rows[static_cast<std::size_t>(s.sequence_param(i, k))] = seq;
          continue;
        }
        ops::Attrs a{{AttrKey::Axis, std::int64_t{0}}};
        if (taps[k] != 0) a.set(AttrKey::Start, taps[k]);
        if (steps)
          a.set(AttrKey::Stop, taps[k] + *steps);
        else if (taps[k] != taps.back())
          a.set(AttrKey::Stop, taps[k] - taps.back());
        const std::array one{seq};
        const auto r = g().add_op(OpKind::Slice, a, one);
        if (!r) return false;
        rows[static_cast<std::size_t>(s.sequence_param(i, k))] = *r;
      }
    }
    return true;
  }
};

}  // namespace

egraph::Rewrite make_scan_to_reduction(TensorEGraph& g) {
  return make_scan_rewrite("scan-to-reduction", std::make_shared<ToReduction>(g));
}

}  // namespace eqsat::rules
