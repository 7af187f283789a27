#include "rules/loops/scan_merge_sequences.hpp"

#include "rules/loops/scan_view.hpp"
#include "rules/tensor/substitute.hpp"

#include <algorithm>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;

namespace {

class MergeSequences final : public ScanApplier {
 public:
  explicit MergeSequences(TensorEGraph& g) : ScanApplier(g, "scan-merge-sequences") {}

 private:
  bool depends_only_on_form() const override { return true; }
  bool rewrite(egraph::EGraph&, EClassId root, const ScanView& s) override {
    for (std::size_t b = 1; b < s.num_sequences(); ++b)
      for (std::size_t a = 0; a < b; ++a)
        if (s.operands[s.sequence_operand(a)] == s.operands[s.sequence_operand(b)]) {
          const auto scan = merged(s, a, b);
          return merge_loop(g(), root, scan);
        }
    return false;
  }

  // The loop reading sequence b through sequence a.
  std::optional<EClassId> merged(const ScanView& s, std::size_t a, std::size_t b) {
    const auto& ta = s.spec.sequence_taps[a];
    const auto& tb = s.spec.sequence_taps[b];
    ops::IntList taps = ta;
    taps.insert(taps.end(), tb.begin(), tb.end());
    std::ranges::sort(taps);
    taps.erase(std::unique(taps.begin(), taps.end()), taps.end());

    ops::ScanSpec spec = s.spec;
    spec.sequence_taps[a] = taps;
    spec.sequence_taps.erase(spec.sequence_taps.begin() + static_cast<std::ptrdiff_t>(b));
    // New slots: sequences in their order (a with the merged taps, b gone),
    // then every other parameter after them, shifted.
    const auto& old_params = s.params();
    std::vector<std::int64_t> slot_of(old_params.size());
    std::vector<ops::TensorType> params;
    std::int64_t first_of_a = 0;
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      if (i == b) continue;
      if (i == a) first_of_a = static_cast<std::int64_t>(params.size());
      const auto& now = i == a ? taps : s.spec.sequence_taps[i];
      for (std::size_t k = 0; k < now.size(); ++k)
        params.push_back(old_params[static_cast<std::size_t>(s.sequence_param(i, 0))]);
      if (i != a)
        for (std::size_t k = 0; k < now.size(); ++k)
          slot_of[static_cast<std::size_t>(s.sequence_param(i, k))] =
              static_cast<std::int64_t>(params.size() - now.size() + k);
    }
    auto position = [&](std::int64_t tap) {
      return first_of_a + (std::ranges::lower_bound(taps, tap) - taps.begin());
    };
    for (std::size_t k = 0; k < ta.size(); ++k)
      slot_of[static_cast<std::size_t>(s.sequence_param(a, k))] = position(ta[k]);
    for (std::size_t k = 0; k < tb.size(); ++k)
      slot_of[static_cast<std::size_t>(s.sequence_param(b, k))] = position(tb[k]);
    const std::int64_t rest = s.sequence_param(s.num_sequences(), 0);
    for (auto slot = rest; slot < s.num_params(); ++slot) {
      slot_of[static_cast<std::size_t>(slot)] = static_cast<std::int64_t>(params.size());
      params.push_back(old_params[static_cast<std::size_t>(slot)]);
    }
    std::vector<std::size_t> outputs(s.fn->arity());
    for (std::size_t j = 0; j < outputs.size(); ++j) outputs[j] = j;
    const std::vector<EClassId> none(old_params.size());
    const auto body = remap_body(g(), s.operands[0], slot_of, none, std::move(params), outputs);
    if (!body) return std::nullopt;
    std::vector<EClassId> operands = s.operands;
    operands.erase(operands.begin() + static_cast<std::ptrdiff_t>(s.sequence_operand(b)));
    operands[0] = *body;
    return add_scan(g(), s.attrs, spec, operands);
  }
};

}  // namespace

egraph::Rewrite make_scan_merge_sequences(TensorEGraph& g) {
  return make_scan_rewrite("scan-merge-sequences", std::make_shared<MergeSequences>(g));
}

}  // namespace eqsat::rules
