#include "rules/loops/scan_fusion_failures.hpp"

#include <algorithm>
#include <variant>

namespace eqsat::rules {

namespace {

std::int64_t leading_dim(const ops::Type* t) {
  const auto* x = std::get_if<ops::TensorType>(t);
  return x && x->rank() > 0 ? x->dims[0] : ops::kUnknownDim;
}

}  // namespace

std::vector<OwnCheck> own_checks(const ops::ScanSpec& spec, const std::vector<std::uint64_t>& keys,
                                 const std::vector<const ops::Type*>& types, bool own_may_fail) {
  using Kind = OwnCheck::Kind;
  std::vector<OwnCheck> checks;
  if (!own_may_fail) return checks;
  std::size_t at = 1;
  if (spec.has_n_steps) {
    checks.push_back({Kind::StepCount, keys[at], 0});
    ++at;
  }
  for (const ops::IntList& taps : spec.sequence_taps)
    checks.push_back({Kind::Sequence, keys[at++], taps.back()});
  for (const ops::IntList& taps : spec.mitsot_taps) {
    if (leading_dim(types[at]) == ops::kUnknownDim)
      checks.push_back({Kind::History, keys[at], -taps.front()});
    ++at;
  }
  return checks;
}

bool state_of_unknown_shape(const ops::ScanSpec& spec, const std::vector<const ops::Type*>& types) {
  const std::size_t first = 1 + spec.has_n_steps + spec.sequence_taps.size();
  const std::size_t states = spec.mitsot_taps.size() + static_cast<std::size_t>(spec.num_sitsot);
  for (std::size_t i = first; i < first + states && i < types.size(); ++i) {
    const auto* x = std::get_if<ops::TensorType>(types[i]);
    if (!x) return true;
    // A mit-sot's history may have any length; its rows are the state.
    const bool history = i < first + spec.mitsot_taps.size();
    if (std::ranges::count(x->dims.begin() + (history ? 1 : 0), x->dims.end(), ops::kUnknownDim) >
        0)
      return true;
  }
  return false;
}

bool adds_failures(const LoopFailures& from, const LoopFailures& into, bool steps_may_run) {
  if (from.body && steps_may_run) return true;
  for (std::uint64_t k : from.failing)
    if (std::ranges::find(into.operands, k) == into.operands.end()) return true;
  for (const OwnCheck& check : from.checks)
    if (std::ranges::none_of(into.checks, [&](const OwnCheck& c) { return c.covers(check); }))
      return true;
  return false;
}

}  // namespace eqsat::rules
