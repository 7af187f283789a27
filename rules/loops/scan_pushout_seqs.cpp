#include "rules/loops/scan_pushout.hpp"
#include "rules/loops/scan_pushout_batch.hpp"

#include "rules/tensor/substitute.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <numeric>

namespace eqsat::rules {

using egraph::EClassId;
using ops::TermRef;

namespace {

// Moves the maximal vectorizable subterms of a body out as new sequences.
class PushOutSeqs final : public ScanApplier {
 public:
  explicit PushOutSeqs(TensorEGraph& g) : ScanApplier(g, "scan-push-out-seqs") {}

 private:
  bool depends_only_on_form() const override { return true; }
  bool rewrite(egraph::EGraph&, EClassId root, const ScanView& s) override {
    StepBatcher batch(g(), s);
    if (!batch.ok()) return false;
    const std::vector<TermRef> targets = collect_targets(batch, s);
    if (targets.empty()) return false;
    std::vector<EClassId> values;
    for (TermRef t : targets) {
      const auto v = batch.add(t);
      if (!v) return false;
      values.push_back(*v);
    }
    const auto lifted = lift(s, targets);
    if (!lifted) return false;
    const auto scan = rebuild(s, *lifted, values);
    return merge_loop(g(), root, scan);
  }

  // The subterms of the body's outputs to move out, in first-seen order:
  // the maximal ones that vectorize per step and are more than a parameter.
  static std::vector<TermRef> collect_targets(StepBatcher& batch, const ScanView& s) {
    std::vector<TermRef> roots;
    for (std::size_t j = 0; j < s.fn->arity(); ++j) {
      const TermRef out = s.body_output(j);
      // A whole nit-sot is scan-push-out-nitsots' work.
      const bool nitsot = j >= s.num_mitsot() + s.num_sitsot();
      if (!nitsot || batch.classify(out) != Batch::PerStep) roots.push_back(out);
    }
    std::vector<TermRef> targets;
    ops::for_each_post_order(
        roots, ops::Bodies::Skip, [](TermRef) {},
        [&](TermRef t) {
          if (t->free_nominals().empty()) return false;
          if (t->kind() != ops::OpKind::Nominal && batch.classify(t) == Batch::PerStep) {
            targets.push_back(t);
            return false;
          }
          return true;
        });
    return targets;
  }

  // The body with each target replaced by a parameter of its own.
  struct Lifted {
    EClassId body;
    std::vector<ops::TensorType> params;  // the old ones, then one per target
    std::vector<bool> read;               // per parameter: the new body reads it
    std::size_t num_outputs = 0;
  };

  // Each target's class becomes a new parameter after the old ones (a
  // generalization of the body's classes: substitute.hpp).
  std::optional<Lifted> lift(const ScanView& s, const std::vector<TermRef>& targets) {
    Lifted l;
    l.params = s.fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
    std::vector<Replace> replaced;
    for (TermRef t : targets) {
      replaced.push_back(
          {g().add_term(t),
           nominal_class(g(), static_cast<std::int64_t>(l.params.size()), t->tensor_type())});
      l.params.push_back(t->tensor_type());
    }
    Substitution generalize(g(), std::move(replaced));
    std::vector<EClassId> outs;
    l.read.assign(l.params.size(), false);
    for (EClassId o : body_outputs(g(), s.operands[0])) {
      const auto image = generalize(o);
      if (!image) return std::nullopt;
      outs.push_back(*image);
      for (std::int64_t k : g().data(*image).free_nominals)
        l.read[static_cast<std::size_t>(k)] = true;
    }
    const auto body = add_body(g(), l.params, outs);
    if (!body) return std::nullopt;
    l.body = *body;
    l.num_outputs = outs.size();
    return l;
  }

  // The loop over the lifted body, `values` (one per target) its new
  // sequences. These come after the old sequences the body still reads (an
  // old one it no longer reads is dropped: each new sequence holds exactly
  // the steps the loop runs, so the trip count stays); the state and
  // non-sequence parameters follow.
  std::optional<EClassId> rebuild(const ScanView& s, const Lifted& l,
                                  const std::vector<EClassId>& values) {
    const std::int64_t nparams = s.num_params();
    std::vector<std::int64_t> new_slot(l.params.size(), -1);
    std::vector<ops::TensorType> moved;
    ops::ScanSpec spec = s.spec;
    spec.sequence_taps.clear();
    std::vector<EClassId> operands{EClassId{}};
    if (s.spec.has_n_steps) operands.push_back(s.operands[s.n_steps_operand()]);
    const auto keep_param = [&](std::int64_t k) {
      new_slot[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(moved.size());
      moved.push_back(l.params[static_cast<std::size_t>(k)]);
    };
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      const auto& taps = s.spec.sequence_taps[i];
      bool used = false;
      for (std::size_t k = 0; k < taps.size(); ++k)
        used = used || l.read[static_cast<std::size_t>(s.sequence_param(i, k))];
      if (!used) continue;
      for (std::size_t k = 0; k < taps.size(); ++k) keep_param(s.sequence_param(i, k));
      spec.sequence_taps.push_back(taps);
      operands.push_back(s.operands[s.sequence_operand(i)]);
    }
    for (std::size_t k = 0; k < values.size(); ++k) {
      keep_param(nparams + static_cast<std::int64_t>(k));
      spec.sequence_taps.push_back({0});
      operands.push_back(values[k]);
    }
    for (std::int64_t k = s.mitsot_param(0, 0); k < nparams; ++k) keep_param(k);
    operands.insert(operands.end(),
                    s.operands.begin() + static_cast<std::ptrdiff_t>(s.mitsot_operand(0)),
                    s.operands.end());
    std::vector<std::size_t> all(l.num_outputs);
    std::iota(all.begin(), all.end(), std::size_t{0});
    const std::vector<EClassId> no_values(l.params.size());
    const auto body = remap_body(g(), l.body, new_slot, no_values, std::move(moved), all);
    if (!body) return std::nullopt;
    operands[0] = *body;
    return add_scan(g(), s.attrs, spec, operands);
  }
};

}  // namespace

egraph::Rewrite make_scan_push_out_seqs(TensorEGraph& g) {
  return make_scan_rewrite("scan-push-out-seqs", std::make_shared<PushOutSeqs>(g));
}

}  // namespace eqsat::rules
