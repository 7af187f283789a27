#include "scan_pushout.hpp"
#include "scan_pushout_batch.hpp"

#include "substitute.hpp"

#include <algorithm>
#include <functional>
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
    // Outer targets first: a subterm was made before the terms holding it.
    std::ranges::sort(targets, std::greater{}, [](TermRef t) { return t->id(); });
    std::vector<EClassId> values;
    for (TermRef t : targets) {
      const auto v = batch.add(t);
      if (!v) return false;
      values.push_back(*v);
    }

    // The new sequences come after the old ones the body still reads (an
    // old one it no longer reads is dropped: each new sequence holds
    // exactly the steps the loop runs, so the trip count stays); the state
    // and non-sequence parameters follow.
    const std::int64_t nparams = s.num_params();
    const auto added = static_cast<std::int64_t>(targets.size());
    TermRef body = s.fn;
    for (std::int64_t k = 0; k < added; ++k) {
      const ops::TensorType& t = targets[static_cast<std::size_t>(k)]->tensor_type();
      body = replace_in_body(body, targets[static_cast<std::size_t>(k)],
                             ops::Term::nominal(nparams + k, t), t);
    }
    std::vector<bool> read(static_cast<std::size_t>(nparams + added), false);
    for (TermRef o : body->operands())
      for (std::int64_t k : o->free_nominals()) read[static_cast<std::size_t>(k)] = true;
    const auto& params = body->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
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
    std::vector<TermRef> outputs;
    for (TermRef o : body->operands()) outputs.push_back(rename_nominals(o, new_slot));
    operands[0] = g().add_term(ops::Term::fn(std::move(moved), std::move(outputs)));
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
