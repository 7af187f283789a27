#include "rules/loops/scan_fusion.hpp"

#include "rules/loops/scan_fusion_failures.hpp"
#include "rules/loops/scan_fusion_layout.hpp"
#include "rules/loops/scan_view.hpp"
#include "rules/tensor/substitute.hpp"

#include "rules/tensor/op_symbols.hpp"

#include "ops/run_time_failure.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <set>
#include <unordered_set>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// What proves two loops run the same number of steps: a constant count, or
// the same symbolic sources (the :n-steps class, or every sequence with
// its deepest tap).
struct TripCount {
  std::optional<std::int64_t> constant;
  std::vector<std::pair<std::uint64_t, std::int64_t>> sources;

  bool same_as(const TripCount& o) const {
    return constant ? constant == o.constant : !o.constant && sources == o.sources;
  }
};

TripCount trip_count(const TensorEGraph& g, const ScanView& s) {
  TripCount t;
  if (s.spec.has_n_steps) {
    const EClassId n = s.operands[s.n_steps_operand()];
    const auto& u = g.data(n).uniform;
    if (u)
      t.constant = static_cast<std::int64_t>(*u);
    else
      t.sources.emplace_back(n.value(), 0);
    return t;
  }
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  bool known = true;
  for (std::size_t i = 0; i < s.num_sequences(); ++i) {
    const EClassId seq = s.operands[s.sequence_operand(i)];
    const std::int64_t tap = s.spec.sequence_taps[i].back();
    const std::int64_t len = g.data(seq).tensor_type().dims[0];
    t.sources.emplace_back(seq.value(), tap);
    if (len == ops::kUnknownDim)
      known = false;
    else
      shortest = std::min(shortest, std::max<std::int64_t>(0, len - tap));
  }
  if (known) {
    t.constant = shortest;
    t.sources.clear();
  } else {
    std::ranges::sort(t.sources);
    t.sources.erase(std::unique(t.sources.begin(), t.sources.end()), t.sources.end());
  }
  return t;
}

// True when `target` is reachable from `from` through children of any
// e-node of each class (conservative: any alternative may be chosen).
bool reaches(const egraph::EGraph& eg, std::span<const EClassId> from, EClassId target) {
  std::vector<EClassId> stack(from.begin(), from.end());
  std::unordered_set<std::uint64_t> seen;
  while (!stack.empty()) {
    const EClassId c = eg.find(stack.back());
    stack.pop_back();
    if (c == target) return true;
    if (!seen.insert(c.value()).second) continue;
    for (egraph::ENodeId n : eg.nodes(c))
      for (EClassId k : eg.children(n)) stack.push_back(k);
  }
  return false;
}

// What loop e-node `s` may fail on (scan_fusion_failures.hpp), with
// e-classes as keys.
LoopFailures failures_of(const TensorEGraph& g, const ScanView& s) {
  LoopFailures f;
  std::vector<std::uint64_t> keys;
  std::vector<const ops::Type*> types;
  std::vector<const ops::Array*> values;
  for (EClassId c : s.operands) {
    const TensorData& d = g.data(c);
    keys.push_back(g.egraph().find(c).value());
    types.push_back(&d.type());
    values.push_back(d.value ? &*d.value : nullptr);
  }
  for (std::size_t i = 1; i < keys.size(); ++i) {
    f.operands.push_back(keys[i]);
    if (g.data(s.operands[i]).may_fail) f.failing.push_back(keys[i]);
  }
  f.body = g.data(s.operands[0]).may_fail || state_of_unknown_shape(s.spec, types);
  f.checks = own_checks(s.spec, keys, types, ops::may_fail(OpKind::Scan, s.attrs, types, values));
  return f;
}

class ScanFusion final : public ScanApplier {
 public:
  explicit ScanFusion(TensorEGraph& g) : ScanApplier(g, "scan-fusion") {}

 private:
  bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& a) override {
    if (made_by_fusion(eg, root) || keeps_last_steps(a)) return false;
    const TripCount count = trip_count(g(), a);
    bool changed = false;
    const std::vector<EClassId> scans(eg.classes_with_op(op_symbol(OpKind::Scan)).begin(),
                                      eg.classes_with_op(op_symbol(OpKind::Scan)).end());
    for (EClassId other : scans) {
      other = eg.find(other);
      if (other.value() <= root.value() || made_by_fusion(eg, other)) continue;
      // One pair of classes is fused once, through its first scans.
      if (!tried_.insert({root.value(), other.value()}).second) continue;
      std::optional<ScanView> b;
      for (egraph::ENodeId n : eg.nodes(other))
        if ((b = view_scan(g(), n))) break;
      if (!b || keeps_last_steps(*b) || !count.same_as(trip_count(g(), *b))) continue;
      // Only loops outside bodies fuse here: parameters are shared by every
      // body with the same parameter types, so two loops reading "p0" may
      // sit in different bodies, and their fused loop, once a call inlines
      // one of the bodies, would put the other body's work where it reads
      // graph inputs. Loops in one body fuse after extraction instead
      // (scan_fusion_extracted.hpp), where scopes are known.
      if (!g().data(root).free_nominals.empty() || !g().data(other).free_nominals.empty()) continue;
      if (adds_failures(eg, root, a, other, *b, count)) continue;
      if (reaches(eg, b->operands, root) || reaches(eg, a.operands, other)) continue;
      changed |= fuse(eg, root, a, other, *b);
      root = eg.find(root);
    }
    return changed;
  }

  // Whether the fused loop may fail where loop a's or loop b's outputs do
  // not (issue 25): fusion never adds a failure to an output. A class that
  // cannot fail may hold a loop e-node that can (its other form drops the
  // failing work): the e-node fused must then fail nowhere.
  bool adds_failures(const egraph::EGraph& eg, EClassId ra, const ScanView& a, EClassId rb,
                     const ScanView& b, const TripCount& count) {
    const bool runs = !count.constant || *count.constant > 0;
    const LoopFailures fa = failures_of(g(), a), fb = failures_of(g(), b), none;
    if (rules::adds_failures(fa, fb, runs) || rules::adds_failures(fb, fa, runs)) return true;
    return (!g().data(eg.find(ra)).may_fail && rules::adds_failures(fa, none, runs)) ||
           (!g().data(eg.find(rb)).may_fail && rules::adds_failures(fb, none, runs));
  }

  bool fuse(egraph::EGraph& eg, EClassId ra, const ScanView& a, EClassId rb, const ScanView& b) {
    std::array<std::vector<std::uint64_t>, 2> keys;
    for (EClassId c : a.operands) keys[0].push_back(c.value());
    for (EClassId c : b.operands) keys[1].push_back(c.value());
    // Bodies are renamed on e-classes: the fused body starts with every
    // form saturation found for either body.
    const std::array<const ScanView*, 2> views{&a, &b};
    std::array<std::vector<EClassId>, 2> renamed_outputs;
    const RenamedOutputs renamed =
        [&](int l,
            std::span<const std::int64_t> slot_of) -> std::optional<std::vector<std::uint64_t>> {
      const ScanView& s = *views[static_cast<std::size_t>(l)];
      std::vector<std::size_t> all(s.fn->arity());
      std::iota(all.begin(), all.end(), std::size_t{0});
      const auto outs = remap_outputs(g(), s.operands[0], slot_of, {}, {}, all);
      if (!outs) return std::nullopt;
      std::vector<std::uint64_t> keys;
      for (EClassId o : *outs) keys.push_back(g().egraph().find(o).value());
      renamed_outputs[static_cast<std::size_t>(l)] = *outs;
      return keys;
    };
    const auto f =
        fuse_layout({a.spec, a.params(), keys[0]}, {b.spec, b.params(), keys[1]}, renamed);
    if (!f) return false;
    std::vector<EClassId> body;
    for (auto [l, j] : f->body) body.push_back(renamed_outputs[static_cast<std::size_t>(l)][j]);
    const auto fn = add_body(g(), f->params, body);
    if (!fn) return false;
    std::vector<EClassId> operands{*fn};
    for (auto [loop, i] : f->operands) operands.push_back((loop == 0 ? a : b).operands[i]);
    const auto fused = add_scan(g(), a.attrs, f->spec, operands);
    if (!fused) return false;
    made_.push_back(*fused);
    bool changed = false;
    const std::array<std::pair<EClassId, const std::vector<std::size_t>*>, 2> loops{
        std::pair{ra, &f->output[0]}, std::pair{rb, &f->output[1]}};
    for (const auto& [loop, positions] : loops)
      for (std::size_t i = 0; i < positions->size(); ++i) {
        const auto old = get(eg.find(loop), i);
        const auto now = get(eg.find(*fused), (*positions)[i]);
        if (old && now) changed |= eg.merge(*old, *now);
      }
    return changed;
  }

  std::optional<EClassId> get(EClassId tuple, std::size_t i) {
    return g().add_op(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(i)}},
                      std::array{tuple});
  }

  // Loops that keep only their last steps are left alone: :keep is a
  // storage choice scan-save-mem makes for the loops fusion built, and a
  // loop fused with its own :keep variant would carry every state twice,
  // then three times, without end.
  static bool keeps_last_steps(const ScanView& s) {
    return std::ranges::any_of(s.spec.keep, [](std::int64_t k) { return k != 0; });
  }

  // Whether c is the class of a loop fusion built. The canonical classes of
  // those loops are kept sorted and found again only when the e-graph has
  // changed: a candidate pair is one lookup, not a pass over every loop.
  bool made_by_fusion(const egraph::EGraph& eg, EClassId c) {
    if (made_classes_version_ != eg.version() || made_classes_.size() != made_.size()) {
      made_classes_.clear();
      for (EClassId m : made_) made_classes_.push_back(eg.find(m).value());
      std::ranges::sort(made_classes_);
      made_classes_version_ = eg.version();
    }
    return std::ranges::binary_search(made_classes_, eg.find(c).value());
  }

  std::vector<EClassId> made_;
  std::vector<std::uint64_t> made_classes_;  // made_, canonical at made_classes_version_
  std::uint64_t made_classes_version_ = 0;
  std::set<std::pair<std::uint64_t, std::uint64_t>> tried_;  // pairs of scan classes
};

}  // namespace

egraph::Rewrite make_scan_fusion(TensorEGraph& g) {
  return make_scan_rewrite("scan-fusion", std::make_shared<ScanFusion>(g));
}

}  // namespace eqsat::rules
