#include "scan_pushout.hpp"
#include "scan_pushout_batch.hpp"

#include "substitute.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_set>

namespace eqsat::rules {

using egraph::EClassId;
using ops::TermRef;

namespace {

// Moves the maximal vectorizable subterms of a body out as new sequences.
class PushOutSeqs final : public ScanApplier {
 public:
  explicit PushOutSeqs(TensorEGraph& g) : ScanApplier(g, "scan-push-out-seqs") {}

 private:
  bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& s) override {
    StepBatcher batch(g(), s);
    if (!batch.ok()) return false;
    std::vector<TermRef> targets;
    std::unordered_set<TermRef> seen;
    for (std::size_t j = 0; j < s.fn->arity(); ++j) {
      const TermRef out = s.body_output(j);
      // A whole nit-sot is scan-push-out-nitsots' work.
      const bool nitsot = j >= s.num_mitsot() + s.num_sitsot();
      if (nitsot && batch.classify(out) == Batch::PerStep) continue;
      find_targets(batch, out, targets, seen);
    }
    if (targets.empty()) return false;
    std::vector<EClassId> values;
    for (TermRef t : targets) {
      const auto v = batch.add(t);
      if (!v) return false;
      values.push_back(*v);
    }

    // Each target's class becomes a new parameter after the old ones (a
    // generalization of the body's classes: substitute.hpp).
    const std::int64_t nparams = s.num_params();
    const auto added = static_cast<std::int64_t>(targets.size());
    auto params = s.fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
    std::vector<Replace> lift;
    for (TermRef t : targets) {
      lift.push_back({g().add_term(t), nominal_class(g(), static_cast<std::int64_t>(params.size()),
                                                     t->tensor_type())});
      params.push_back(t->tensor_type());
    }
    Substitution generalize(g(), std::move(lift));
    std::vector<EClassId> outs;
    std::vector<bool> read(params.size(), false);
    for (EClassId o : body_outputs(g(), s.operands[0])) {
      const auto image = generalize(o);
      if (!image) return false;
      outs.push_back(*image);
      for (std::int64_t k : g().data(*image).free_nominals)
        read[static_cast<std::size_t>(k)] = true;
    }
    const auto lifted = add_body(g(), params, outs);
    if (!lifted) return false;

    // The new sequences come after the old ones the body still reads (an
    // old one it no longer reads is dropped: each new sequence holds
    // exactly the steps the loop runs, so the trip count stays); the state
    // and non-sequence parameters follow.
    std::vector<std::int64_t> new_slot(params.size(), -1);
    std::vector<ops::TensorType> moved;
    ops::ScanSpec spec = s.spec;
    spec.sequence_taps.clear();
    std::vector<EClassId> operands{EClassId{}};
    if (s.spec.has_n_steps) operands.push_back(s.operands[s.n_steps_operand()]);
    const auto keep_param = [&](std::int64_t k) {
      new_slot[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(moved.size());
      moved.push_back(params[static_cast<std::size_t>(k)]);
    };
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      const auto& taps = s.spec.sequence_taps[i];
      bool used = false;
      for (std::size_t k = 0; k < taps.size(); ++k)
        used = used || read[static_cast<std::size_t>(s.sequence_param(i, k))];
      if (!used) continue;
      for (std::size_t k = 0; k < taps.size(); ++k) keep_param(s.sequence_param(i, k));
      spec.sequence_taps.push_back(taps);
      operands.push_back(s.operands[s.sequence_operand(i)]);
    }
    for (std::int64_t k = 0; k < added; ++k) {
      keep_param(nparams + k);
      spec.sequence_taps.push_back({0});
      operands.push_back(values[static_cast<std::size_t>(k)]);
    }
    for (std::int64_t k = s.mitsot_param(0, 0); k < nparams; ++k) keep_param(k);
    operands.insert(operands.end(),
                    s.operands.begin() + static_cast<std::ptrdiff_t>(s.mitsot_operand(0)),
                    s.operands.end());
    std::vector<std::size_t> all(outs.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    const std::vector<EClassId> no_values(params.size());
    const auto body = remap_body(g(), *lifted, new_slot, no_values, std::move(moved), all);
    if (!body) return false;
    operands[0] = *body;
    const auto scan = add_scan(g(), s.attrs, spec, operands);
    return scan && eg.merge(root, *scan);
  }

  // The maximal subterms of `t` that vectorize per step and are more than
  // a parameter, each added once to `out`.
  static void find_targets(StepBatcher& batch, TermRef t, std::vector<TermRef>& out,
                           std::unordered_set<TermRef>& seen) {
    if (t->free_nominals().empty() || !seen.insert(t).second) return;
    if (t->kind() != ops::OpKind::Nominal && batch.classify(t) == Batch::PerStep) {
      out.push_back(t);
      return;
    }
    for (TermRef o : t->operands()) find_targets(batch, o, out, seen);
  }
};

}  // namespace

egraph::Rewrite make_scan_push_out_seqs(TensorEGraph& g) {
  return make_scan_rewrite("scan-push-out-seqs", std::make_shared<PushOutSeqs>(g));
}

}  // namespace eqsat::rules
