#include "rules/loops/scan_fusion_layout.hpp"

#include <map>
#include <optional>

namespace eqsat::rules {

namespace {

// State j of b (tuple position) read as state i of a: same_state[j] = i.
using SameStates = std::map<std::size_t, std::size_t>;

// Builds the fused parameter list and the slot each loop's parameters take.
class Fuser {
 public:
  Fuser(const LoopParts& a, const LoopParts& b, SameStates same)
      : loops_{&a, &b}, same_(std::move(same)) {
    for (int l = 0; l < 2; ++l) {
      const auto& params = loops_[l]->params;
      params_[l].assign(params.begin(), params.end());
      slot_[l].assign(params.size(), -1);
      operand_[l] = 1 + loops_[l]->spec.has_n_steps;
    }
  }

  // Lays out the operands and parameters.
  void lay_out() {
    const ops::ScanSpec &sa = loops_[0]->spec, &sb = loops_[1]->spec;
    FusedLoop& f = out_;
    f.spec.has_n_steps = sa.has_n_steps || sb.has_n_steps;
    f.spec.until = sa.until;
    if (f.spec.has_n_steps) f.operands.emplace_back(sa.has_n_steps ? 0 : 1, 1);

    // Sequences: shared when the value and the taps are the same.
    for (int l = 0; l < 2; ++l)
      for (const ops::IntList& taps : loops_[l]->spec.sequence_taps) {
        std::optional<std::size_t> same;
        for (std::size_t i = 0; l == 1 && i < sa.sequence_taps.size() && !same; ++i)
          if (sa.sequence_taps[i] == taps &&
              loops_[0]->keys[1 + sa.has_n_steps + i] == loops_[1]->keys[operand_[1]])
            same = i;
        if (same) {
          for (std::size_t k = 0; k < taps.size(); ++k)
            slot_[1][next_[1]++] = seq_slot_[*same] + static_cast<std::int64_t>(k);
          ++operand_[1];
          continue;
        }
        if (l == 0) seq_slot_.push_back(static_cast<std::int64_t>(params_out_.size()));
        f.spec.sequence_taps.push_back(taps);
        take(l, static_cast<std::int64_t>(taps.size()));
      }
    // States: b's states identified with a's read a's parameters.
    for (int kind = 0; kind < 2; ++kind)
      for (int l = 0; l < 2; ++l) {
        const ops::ScanSpec& sl = loops_[l]->spec;
        const std::size_t count = kind == 0 ? sl.mitsot_taps.size() : num(sl.num_sitsot);
        for (std::size_t i = 0; i < count; ++i) {
          const std::size_t state = kind == 0 ? i : sl.mitsot_taps.size() + i;
          const std::size_t taps = kind == 0 ? sl.mitsot_taps[i].size() : 1;
          if (l == 1 && same_.contains(state)) {
            for (std::size_t k = 0; k < taps; ++k)
              slot_[1][next_[1]++] = state_slot_[same_.at(state)] + static_cast<std::int64_t>(k);
            ++operand_[1];
            continue;
          }
          if (l == 0) state_slot_.push_back(static_cast<std::int64_t>(params_out_.size()));
          if (kind == 0)
            f.spec.mitsot_taps.push_back(sl.mitsot_taps[i]);
          else
            ++f.spec.num_sitsot;
          take(l, static_cast<std::int64_t>(taps));
        }
      }
    f.spec.num_nitsot = sa.num_nitsot + sb.num_nitsot;
    // Non-sequences: shared when the value is the same.
    const std::size_t first_a = operand_[0];  // a's first non-sequence operand
    for (int l = 0; l < 2; ++l)
      for (std::int64_t i = 0; i < loops_[l]->spec.num_nonsequences; ++i) {
        std::optional<std::int64_t> same;
        for (std::int64_t k = 0; l == 1 && k < sa.num_nonsequences && !same; ++k)
          if (loops_[0]->keys[first_a + static_cast<std::size_t>(k)] ==
              loops_[1]->keys[operand_[1]])
            same = slot_[0][params_[0].size() - static_cast<std::size_t>(sa.num_nonsequences - k)];
        if (same) {
          slot_[1][next_[1]++] = *same;
          ++operand_[1];
          continue;
        }
        take(l, 1);
        ++f.spec.num_nonsequences;
      }
  }

  // Lays out the fused body and places each loop's outputs. Returns b's
  // identified states whose next values differ from a's (the body is then
  // not usable), or nullopt when the stop flags differ or a body cannot be
  // renamed.
  std::optional<std::vector<std::size_t>> build_body(const RenamedOutputs& renamed) {
    const ops::ScanSpec* s[2] = {&loops_[0]->spec, &loops_[1]->spec};
    std::array<std::vector<std::uint64_t>, 2> outs;
    for (int l = 0; l < 2; ++l) {
      auto o = renamed(l, slot_[l]);
      if (!o) return std::nullopt;
      outs[l] = std::move(*o);
    }
    std::size_t fused = 0;
    std::array<std::size_t, 2> at{0, 0};
    const auto kind_count = [&](int l, int kind) -> std::size_t {
      return kind == 0   ? s[l]->mitsot_taps.size()
             : kind == 1 ? static_cast<std::size_t>(s[l]->num_sitsot)
                         : static_cast<std::size_t>(s[l]->num_nitsot);
    };
    for (int kind = 0; kind < 3; ++kind)
      for (int l = 0; l < 2; ++l)
        for (std::size_t i = 0; i < kind_count(l, kind); ++i) {
          const std::size_t j = at[l]++;
          if (l == 1 && same_.contains(j)) {
            out_.output[1].push_back(out_.output[0][same_.at(j)]);
            continue;
          }
          out_.output[l].push_back(fused++);
          out_.body.emplace_back(l, j);
        }
    std::vector<std::size_t> differ;
    for (auto [j, i] : same_)
      if (outs[1][j] != outs[0][i]) differ.push_back(j);
    if (out_.spec.until && outs[0].back() != outs[1].back() && differ.empty()) return std::nullopt;
    if (out_.spec.until) out_.body.emplace_back(0, outs[0].size() - 1);
    if (!differ.empty()) return differ;
    // :keep follows its outputs.
    if (!s[0]->keep.empty() || !s[1]->keep.empty()) {
      out_.spec.keep.assign(fused, 0);
      for (int l = 0; l < 2; ++l)
        for (std::size_t j = 0; j < s[l]->keep.size(); ++j)
          out_.spec.keep[out_.output[l][j]] = s[l]->keep[j];
    }
    out_.params = params_out_;
    out_.slot_of = slot_;
    return differ;
  }

  const FusedLoop& result() const { return out_; }

 private:
  // Gives loop l's next `count` parameters and next operand new places.
  void take(int l, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) {
      slot_[l][next_[l]] = static_cast<std::int64_t>(params_out_.size());
      params_out_.push_back(params_[l][next_[l]++]);
    }
    out_.operands.emplace_back(l, operand_[l]++);
  }

  std::array<const LoopParts*, 2> loops_;
  std::array<std::vector<ops::TensorType>, 2> params_;
  std::array<std::vector<std::int64_t>, 2> slot_;
  std::array<std::size_t, 2> next_{0, 0};  // next parameter of each loop
  std::array<std::size_t, 2> operand_;     // next operand of each loop
  static std::size_t num(std::int64_t n) { return static_cast<std::size_t>(n); }

  SameStates same_;
  std::vector<std::int64_t> seq_slot_;    // first fused slot of each of a's sequences
  std::vector<std::int64_t> state_slot_;  // first fused slot of each of a's states
  std::vector<ops::TensorType> params_out_;
  FusedLoop out_;
};

// The states of b that may be a's: same kind and taps, same initial value
// and :keep; each of a's states taken once.
SameStates candidate_states(const LoopParts& a, const LoopParts& b) {
  const auto states = [](const LoopParts& l) {
    std::vector<std::pair<ops::IntList, std::uint64_t>> out;  // taps (empty: sit-sot), init
    const std::size_t first = 1 + l.spec.has_n_steps + l.spec.sequence_taps.size();
    for (std::size_t i = 0; i < l.spec.mitsot_taps.size(); ++i)
      out.emplace_back(l.spec.mitsot_taps[i], l.keys[first + i]);
    for (std::int64_t i = 0; i < l.spec.num_sitsot; ++i)
      out.emplace_back(ops::IntList{},
                       l.keys[first + l.spec.mitsot_taps.size() + static_cast<std::size_t>(i)]);
    return out;
  };
  const auto keep = [](const LoopParts& l, std::size_t j) {
    return l.spec.keep.empty() ? 0 : l.spec.keep[j];
  };
  const auto sa = states(a), sb = states(b);
  SameStates same;
  std::vector<bool> taken(sa.size(), false);
  for (std::size_t j = 0; j < sb.size(); ++j)
    for (std::size_t i = 0; i < sa.size(); ++i)
      if (!taken[i] && sa[i] == sb[j] && keep(a, i) == keep(b, j)) {
        same.emplace(j, i);
        taken[i] = true;
        break;
      }
  return same;
}

}  // namespace

std::optional<FusedLoop> fuse_layout(const LoopParts& a, const LoopParts& b,
                                     const RenamedOutputs& renamed) {
  if (a.spec.until != b.spec.until) return std::nullopt;
  // The largest set of identified states that is consistent: assuming
  // each pair equal, their next values are the same (then, by
  // induction from equal initial values, they are equal at every step).
  SameStates same = candidate_states(a, b);
  for (;;) {
    Fuser fuser(a, b, same);
    fuser.lay_out();
    const auto differ = fuser.build_body(renamed);
    if (!differ) return std::nullopt;
    if (differ->empty()) return fuser.result();
    for (std::size_t j : *differ) same.erase(j);
  }
}

}  // namespace eqsat::rules
