#include "rules/loops/scan_prune.hpp"

#include "rules/tensor/substitute.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <span>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;

namespace {

// One prune of one loop: which body outputs, parameters and operands stay.
class LoopPruner {
 public:
  LoopPruner(TensorEGraph& g, std::vector<EClassId> outputs)
      : g_(g), outputs_(std::move(outputs)) {}

  // The loop computing the outputs in `wanted`, without what they do not
  // need; nullopt when nothing can go or the rebuilt body does not check.
  // Parameters and operands are taken in the scan's order: sequences,
  // mit-sots, sit-sots, non-sequences.
  std::optional<PrunedLoop> prune(const ScanView& s, const std::set<std::size_t>& wanted) {
    Draft d;
    d.keep = closure(s, wanted);
    d.slot_of.assign(s.params().size(), -1);
    d.spec = s.spec;
    d.spec.sequence_taps.clear();
    d.spec.mitsot_taps.clear();
    d.spec.keep.clear();
    d.operands.push_back(EClassId{});
    if (s.spec.has_n_steps) d.operands.push_back(s.operands[s.n_steps_operand()]);
    const std::optional<std::int64_t> steps = cut_sequences(s, d);
    const bool stepping = runs_a_step(s, steps);
    if (!cut_mitsots(s, d, stepping)) return std::nullopt;
    cut_sitsots(s, d, stepping);
    cut_nonsequences(s, d);
    if (d.spec == s.spec && d.params.size() == s.params().size()) return std::nullopt;
    return assemble(s, std::move(d));
  }

 private:
  // True when body output j reads parameter `slot` (by its class: some way
  // to compute it that avoids the slot is enough).
  bool reads(std::size_t j, std::int64_t slot) const {
    return std::ranges::binary_search(g().data(outputs_[j]).free_nominals, slot);
  }

  // Body outputs (the flag included) that `wanted` needs: the closure over
  // the states they read.
  std::vector<bool> closure(const ScanView& s, const std::set<std::size_t>& wanted) const {
    std::vector<bool> keep(outputs_.size(), false);
    std::vector<std::size_t> work(wanted.begin(), wanted.end());
    if (s.spec.until) work.push_back(s.flag_output());
    for (std::size_t m = 0; m < s.num_mitsot(); ++m)
      if (history_checked(s, m)) work.push_back(m);
    while (!work.empty()) {
      const std::size_t j = work.back();
      work.pop_back();
      if (keep[j]) continue;
      keep[j] = true;
      for (std::size_t m = 0; m < s.num_mitsot() + s.num_sitsot(); ++m)
        if (!keep[m] &&
            std::ranges::any_of(s.state_params(m), [&](std::int64_t p) { return reads(j, p); }))
          work.push_back(m);
    }
    return keep;
  }

  // True when mit-sot m's initial history has a length known only at run
  // time: the loop checks it against the deepest tap and fails when it is
  // shorter, so the mit-sot stays, with that tap (issue 25).
  bool history_checked(const ScanView& s, std::size_t m) const {
    return g().data(s.operands[s.mitsot_operand(m)]).tensor_type().dims[0] == ops::kUnknownDim;
  }

  // The loop prune is assembling: what it keeps of the old one, in order.
  struct Draft {
    std::vector<bool> keep;               // old body outputs still needed
    std::vector<std::int64_t> slot_of;    // old parameter slot -> new one, -1 when dropped
    std::vector<ops::TensorType> params;  // new body parameters
    ops::ScanSpec spec;
    std::vector<EClassId> operands;            // operands[0], the body, is set last
    std::vector<std::size_t> states, nitsots;  // kept outputs (old indices), by kind
  };

  // True when some kept body output reads parameter `slot`.
  bool read_by_kept(const Draft& d, std::int64_t slot) const {
    for (std::size_t j = 0; j < d.keep.size(); ++j)
      if (d.keep[j] && reads(j, slot)) return true;
    return false;
  }

  // Keeps old parameter `slot` as the next parameter of the new body.
  static void take(const ScanView& s, Draft& d, std::int64_t slot) {
    d.slot_of[static_cast<std::size_t>(slot)] = static_cast<std::int64_t>(d.params.size());
    d.params.push_back(s.params()[static_cast<std::size_t>(slot)]);
  }

  // Keeps the sequence taps kept outputs read and settles the trip count.
  // Without :n-steps the sequences fix it: a known count becomes :n-steps
  // (unless the sequences kept give it), else each sequence keeps its last
  // tap. With :n-steps, a sequence that may be too short keeps its last tap
  // (its check). Returns that static count, if any.
  std::optional<std::int64_t> cut_sequences(const ScanView& s, Draft& d) {
    std::vector<std::pair<EClassId, std::int64_t>> all_sequences, kept_sequences;
    for (std::size_t i = 0; i < s.num_sequences(); ++i)
      all_sequences.emplace_back(s.operands[s.sequence_operand(i)], s.spec.sequence_taps[i].back());
    const std::optional<std::int64_t> steps =
        s.spec.has_n_steps ? std::nullopt : static_steps(all_sequences);
    bool keep_last_tap = !s.spec.has_n_steps && !steps;
    // A sequence no kept output reads goes all the same: the count it may
    // bound becomes a run-time :n-steps, the fewest steps any sequence allows.
    std::optional<EClassId> run_time_steps;
    if (keep_last_tap && has_unread_sequence(s, d)) run_time_steps = fewest_steps(s);
    keep_last_tap &= !run_time_steps;
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      ops::IntList taps;
      const auto& old = s.spec.sequence_taps[i];
      for (std::size_t k = 0; k < old.size(); ++k) {
        const std::int64_t slot = s.sequence_param(i, k);
        const bool last = k + 1 == old.size();
        if (read_by_kept(d, slot) || (last && (keep_last_tap || checks_steps(s, i)))) {
          taps.push_back(old[k]);
          take(s, d, slot);
        }
      }
      if (taps.empty()) continue;
      kept_sequences.emplace_back(s.operands[s.sequence_operand(i)], taps.back());
      d.spec.sequence_taps.push_back(taps);
      d.operands.push_back(s.operands[s.sequence_operand(i)]);
    }
    if (run_time_steps) {
      d.operands.insert(d.operands.begin() + 1, *run_time_steps);
      d.spec.has_n_steps = true;
    } else if (steps && static_steps(kept_sequences) != *steps) {
      const EClassId n =
          g().add_term(ops::Term::constant(ops::Array::scalar(ops::DType::I64, double(*steps))));
      d.operands.insert(d.operands.begin() + 1, n);
      d.spec.has_n_steps = true;
    }
    return steps;
  }

  // True when sequence i may be too short for a loop's :n-steps: the loop
  // fails then, and the pruned loop must too (issue 25), so the sequence
  // keeps its deepest tap even when no kept output reads it.
  bool checks_steps(const ScanView& s, std::size_t i) const {
    if (!s.spec.has_n_steps) return false;
    const auto& n = g().data(s.operands[s.n_steps_operand()]).uniform;
    const std::int64_t rows = g().data(s.operands[s.sequence_operand(i)]).tensor_type().dims[0];
    return !n || rows == ops::kUnknownDim || rows - s.spec.sequence_taps[i].back() < *n;
  }

  // True when no kept output reads any tap of some sequence.
  bool has_unread_sequence(const ScanView& s, const Draft& d) const {
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      bool read = false;
      for (std::size_t k = 0; k < s.spec.sequence_taps[i].size(); ++k)
        read |= read_by_kept(d, s.sequence_param(i, k));
      if (!read) return true;
    }
    return false;
  }

  // A kept state whose past no kept output reads may become a nit-sot when
  // that keeps the output's shape: the loop runs a step, or the next
  // value's type is static.
  bool as_nitsot(std::size_t m, bool stepping) const {
    return stepping || g().data(outputs_[m]).tensor_type().is_static();
  }

  // Keeps the mit-sots kept outputs need, with the taps they read (a
  // shallower history starts from the last rows of the initial value);
  // false when that slice cannot be added.
  bool cut_mitsots(const ScanView& s, Draft& d, bool stepping) {
    for (std::size_t m = 0; m < s.num_mitsot(); ++m) {
      if (!d.keep[m]) continue;
      ops::IntList taps;
      const auto& old = s.spec.mitsot_taps[m];
      for (std::size_t k = 0; k < old.size(); ++k)
        if (read_by_kept(d, s.mitsot_param(m, k)) || (k == 0 && history_checked(s, m))) {
          taps.push_back(old[k]);
          take(s, d, s.mitsot_param(m, k));
        }
      if (taps.empty() && as_nitsot(m, stepping)) {
        d.nitsots.push_back(m);
        continue;
      }
      if (taps.empty()) {  // keeps its last tap: its history gives the shape
        taps.push_back(old.back());
        take(s, d, s.mitsot_param(m, old.size() - 1));
      }
      EClassId init = s.operands[s.mitsot_operand(m)];
      if (taps.front() != old.front()) {  // a shallower history: its last rows
        ops::Attrs a;
        a.set(ops::AttrKey::Axis, std::int64_t{0});
        a.set(ops::AttrKey::Start, taps.front());
        const EClassId kids[] = {init};
        const auto cut = g().add_op(OpKind::Slice, std::move(a), kids);
        if (!cut) return false;
        init = *cut;
      }
      d.spec.mitsot_taps.push_back(taps);
      d.operands.push_back(init);
      d.states.push_back(m);
    }
    return true;
  }

  // Keeps the sit-sots kept outputs need; then lists the nit-sots, the
  // states turned nit-sot first.
  void cut_sitsots(const ScanView& s, Draft& d, bool stepping) const {
    d.spec.num_sitsot = 0;
    for (std::size_t i = 0; i < s.num_sitsot(); ++i) {
      const std::size_t m = s.num_mitsot() + i;
      if (!d.keep[m]) continue;
      if (!read_by_kept(d, s.sitsot_param(i)) && as_nitsot(m, stepping)) {
        d.nitsots.push_back(m);
        continue;
      }
      take(s, d, s.sitsot_param(i));
      d.operands.push_back(s.operands[s.sitsot_operand(i)]);
      d.states.push_back(m);
      ++d.spec.num_sitsot;
    }
    std::ranges::sort(d.nitsots);
    for (std::size_t j = s.num_mitsot() + s.num_sitsot(); j < s.num_outputs(); ++j)
      if (d.keep[j]) d.nitsots.push_back(j);
    d.spec.num_nitsot = static_cast<std::int64_t>(d.nitsots.size());
  }

  // Keeps the non-sequences kept outputs read.
  void cut_nonsequences(const ScanView& s, Draft& d) const {
    d.spec.num_nonsequences = 0;
    for (std::size_t i = 0; i < s.num_nonsequences(); ++i)
      if (read_by_kept(d, s.nonsequence_param(i))) {
        take(s, d, s.nonsequence_param(i));
        d.operands.push_back(s.operands[s.nonsequence_operand(i)]);
        ++d.spec.num_nonsequences;
      }
  }

  // Rebuilds the body over the kept parameters, its outputs in the new
  // tuple order (states keeping a recurrence, then nit-sots), and adds the
  // new loop.
  std::optional<PrunedLoop> assemble(const ScanView& s, Draft d) {
    std::vector<std::size_t> order = d.states;
    order.insert(order.end(), d.nitsots.begin(), d.nitsots.end());
    PrunedLoop p;
    p.index_of.assign(s.num_outputs(), -1);
    for (std::size_t k = 0; k < order.size(); ++k)
      p.index_of[order[k]] = static_cast<std::int64_t>(k);
    // Same outputs at the same places (a state turned nit-sot included):
    // the tuples are equal.
    p.same_tuple = order.size() == s.num_outputs() && std::ranges::is_sorted(order);
    if (!s.spec.keep.empty())
      for (std::size_t j : order) d.spec.keep.push_back(s.spec.keep[j]);
    if (s.spec.until) order.push_back(s.flag_output());
    const std::vector<EClassId> none(s.params().size());
    const auto body = remap_body(g(), s.operands[0], d.slot_of, none, std::move(d.params), order);
    if (!body) return std::nullopt;
    d.operands[0] = *body;
    const auto scan = add_scan(g(), s.attrs, d.spec, d.operands);
    if (!scan) return std::nullopt;
    p.scan = *scan;
    return p;
  }

  // The trip count that sequences (outer class, last tap) give a loop
  // without :n-steps, when their lengths are static (the loop may still
  // stop earlier on its flag).
  std::optional<std::int64_t> static_steps(
      std::span<const std::pair<EClassId, std::int64_t>> sequences) const {
    std::int64_t steps = std::numeric_limits<std::int64_t>::max();
    for (const auto& [seq, last_tap] : sequences) {
      const ops::Dims& d = g().data(seq).tensor_type().dims;
      if (d.empty() || d[0] == ops::kUnknownDim) return std::nullopt;
      steps = std::min(steps, std::max<std::int64_t>(0, d[0] - last_tap));
    }
    if (steps == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    return steps;
  }

  // The trip count of a loop without :n-steps, computed at run time: the
  // fewest steps any of its sequences allows, max(0, length - deepest tap).
  std::optional<EClassId> fewest_steps(const ScanView& s) {
    const auto scalar = [&](double v) {
      return g().add_term(ops::Term::scalar(ops::DType::I64, v));
    };
    std::optional<EClassId> fewest;
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      const EClassId seq = s.operands[s.sequence_operand(i)];
      std::optional<EClassId> n =
          g().add_op(OpKind::Dim, {{ops::AttrKey::Axis, std::int64_t{0}}}, std::array{seq});
      if (const std::int64_t tap = s.spec.sequence_taps[i].back(); n && tap > 0) {
        n = g().add_op(OpKind::Sub, {}, std::array{*n, scalar(static_cast<double>(tap))});
        if (n) n = g().add_op(OpKind::Maximum, {}, std::array{*n, scalar(0)});
      }
      if (n && fewest) n = g().add_op(OpKind::Minimum, {}, std::array{*fewest, *n});
      if (!n) return std::nullopt;
      fewest = n;
    }
    return fewest;
  }

  // True when the loop provably runs a step. A loop running none still
  // gives its states' outputs their element shape from the initial values;
  // a nit-sot's comes from the body's static type only.
  bool runs_a_step(const ScanView& s, std::optional<std::int64_t> steps) const {
    if (s.spec.has_n_steps) {
      const TensorData& n = g().data(s.operands[s.n_steps_operand()]);
      return n.uniform && *n.uniform >= 1;
    }
    return steps && *steps >= 1;
  }

  TensorEGraph& g() { return g_; }
  const TensorEGraph& g() const { return g_; }

  TensorEGraph& g_;
  std::vector<EClassId> outputs_;  // body output classes of the loop being cut
};

}  // namespace

std::optional<PrunedLoop> prune_loop(TensorEGraph& g, const ScanView& s,
                                     const std::set<std::size_t>& wanted) {
  std::vector<EClassId> outputs = body_outputs(g, s.operands[0]);
  if (outputs.size() != s.fn->arity()) return std::nullopt;
  return LoopPruner(g, std::move(outputs)).prune(s, wanted);
}

bool merge_kept_outputs(TensorEGraph& g, EClassId old, const PrunedLoop& p) {
  bool changed = false;
  const auto get = [&](EClassId scan, std::int64_t i) {
    return g.add_op(OpKind::Get, {{ops::AttrKey::Index, i}}, std::array{scan});
  };
  const auto* tuple = std::get_if<ops::TupleType>(&g.type(old));
  const std::size_t n = tuple ? std::min(tuple->elements.size(), p.index_of.size()) : 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (p.index_of[i] < 0) continue;
    const auto before = get(old, static_cast<std::int64_t>(i));
    if (before) changed |= merge_same(g, *before, get(p.scan, p.index_of[i]));
  }
  return changed;
}

}  // namespace eqsat::rules
