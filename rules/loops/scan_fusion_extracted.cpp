#include "rules/loops/scan_fusion_extracted.hpp"

#include "rules/loops/scan_fusion_failures.hpp"
#include "rules/loops/scan_fusion_layout.hpp"
#include "rules/loops/scan_view.hpp"
#include "rules/tensor/extract_graph.hpp"

#include "ops/post_order.hpp"
#include "ops/run_time_failure.hpp"
#include "ops/type_error.hpp"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace eqsat::rules {

using ops::AttrKey;
using ops::OpKind;
using ops::TermRef;

namespace {

// Trials of pairs per call: each costs one pass over the graph.
constexpr int kMaxTrials = 256;

const ops::ScanSpec& spec_of(TermRef scan) {
  return scan->attrs().get<ops::ScanSpec>(AttrKey::Scan);
}

// The number of steps, when it is a constant.
std::optional<std::int64_t> constant_steps(TermRef scan) {
  const ops::ScanSpec& s = spec_of(scan);
  if (s.has_n_steps) {
    const ops::Array* v = scan->operand(1)->const_value();
    if (v && v->size() == 1) return v->integer_element(0);
    return std::nullopt;
  }
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < s.sequence_taps.size(); ++i) {
    const std::int64_t len = scan->operand(1 + i)->tensor_type().dims[0];
    if (len == ops::kUnknownDim) return std::nullopt;
    shortest = std::min(shortest, std::max<std::int64_t>(0, len - s.sequence_taps[i].back()));
  }
  return shortest;
}

// The symbolic sources of the number of steps: the :n-steps term, or each
// sequence with its deepest tap.
std::vector<std::pair<std::uint64_t, std::int64_t>> step_sources(TermRef scan) {
  const ops::ScanSpec& s = spec_of(scan);
  std::vector<std::pair<std::uint64_t, std::int64_t>> out;
  if (s.has_n_steps) return {{scan->operand(1)->id(), 0}};
  for (std::size_t i = 0; i < s.sequence_taps.size(); ++i)
    out.emplace_back(scan->operand(1 + i)->id(), s.sequence_taps[i].back());
  std::ranges::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool same_steps(TermRef a, TermRef b) {
  const auto ca = constant_steps(a), cb = constant_steps(b);
  if (ca || cb) return ca == cb;
  return step_sources(a) == step_sources(b);
}

// True when `b` occurs under a's operands (bodies included).
bool depends(TermRef a, TermRef b) {
  bool found = false;
  ops::for_each_post_order(
      a->operands(), ops::Bodies::Enter, [](TermRef) {},
      [&](TermRef t) {
        found = found || t == b;
        return !found;
      });
  return found;
}

// What loop term `scan` may fail on (scan_fusion_failures.hpp), with
// terms as keys.
LoopFailures failures_of(TermRef scan, ops::TermFailures& fails) {
  LoopFailures f;
  std::vector<std::uint64_t> keys;
  std::vector<const ops::Type*> types;
  std::vector<const ops::Array*> values;
  for (TermRef o : scan->operands()) {
    keys.push_back(o->id());
    types.push_back(&o->type());
    values.push_back(o->const_value());
  }
  for (std::size_t i = 1; i < keys.size(); ++i) {
    f.operands.push_back(keys[i]);
    if (fails(scan->operand(i))) f.failing.push_back(keys[i]);
  }
  const ops::ScanSpec& spec = spec_of(scan);
  f.body = fails(scan->operand(0)) || state_of_unknown_shape(spec, types);
  f.checks =
      own_checks(spec, keys, types, ops::may_fail(OpKind::Scan, scan->attrs(), types, values));
  return f;
}

// Whether fusing a and b (the same number of steps) may fail where one of
// them does not (issue 25: fusion never adds a failure to an output).
bool fusion_adds_failures(TermRef a, TermRef b, ops::TermFailures& fails) {
  const auto steps = constant_steps(a);
  const bool runs = !steps || *steps > 0;
  const LoopFailures fa = failures_of(a, fails), fb = failures_of(b, fails);
  return adds_failures(fa, fb, runs) || adds_failures(fb, fa, runs);
}

// A scan under the roots and the body it runs in (nullptr: outside every
// body), or several bodies when the same term is used in more than one.
struct ScopedScan {
  TermRef scan;
  std::vector<TermRef> scopes;
};

// Every scan under `roots` (loop bodies included, call bodies not), in
// creation order, with its scopes. Not `for_each_post_order`: a term is
// walked once per body it occurs in.
std::vector<ScopedScan> scans_under(std::span<const TermRef> roots) {
  std::vector<std::pair<TermRef, TermRef>> stack;  // (term, enclosing body)
  for (TermRef r : roots) stack.emplace_back(r, nullptr);
  absl::flat_hash_set<std::pair<TermRef, TermRef>> seen;
  absl::flat_hash_map<TermRef, std::vector<TermRef>> scopes;
  while (!stack.empty()) {
    const auto [t, scope] = stack.back();
    stack.pop_back();
    if (!seen.insert({t, scope}).second) continue;
    if (t->kind() == OpKind::Scan) {
      auto& s = scopes[t];
      if (std::ranges::find(s, scope) == s.end()) s.push_back(scope);
    }
    const std::size_t first = t->kind() == OpKind::Call ? 1 : 0;
    for (std::size_t i = first; i < t->arity(); ++i)
      stack.emplace_back(t->operand(i),
                         t->kind() == OpKind::Scan && i == 0 ? t->operand(0) : scope);
  }
  std::vector<ScopedScan> out;
  for (auto& [scan, s] : scopes) out.push_back({scan, std::move(s)});
  std::ranges::sort(out, {}, [](const ScopedScan& s) { return s.scan->id(); });
  return out;
}

// The fused loop of a and b, or nullptr.
TermRef fused_scan(TermRef a, TermRef b, FusedLoop& f) {
  std::vector<std::uint64_t> ka, kb;
  for (TermRef o : a->operands()) ka.push_back(o->id());
  for (TermRef o : b->operands()) kb.push_back(o->id());
  const std::array<TermRef, 2> fns{a->operand(0), b->operand(0)};
  const auto params = [](TermRef fn) -> const std::vector<ops::TensorType>& {
    return fn->attrs().get<std::vector<ops::TensorType>>(AttrKey::Params);
  };
  const auto renamed_term = [&](std::size_t l, std::size_t j,
                                std::span<const std::int64_t> slot_of) {
    return rename_nominals(fns[l]->operand(j), slot_of);
  };
  const RenamedOutputs renamed = [&](int l, std::span<const std::int64_t> slot_of) {
    std::vector<std::uint64_t> keys;
    const auto loop = static_cast<std::size_t>(l);
    for (std::size_t j = 0; j < fns[loop]->arity(); ++j)
      keys.push_back(renamed_term(loop, j, slot_of)->id());
    return std::optional{keys};
  };
  auto layout =
      fuse_layout({spec_of(a), params(fns[0]), ka}, {spec_of(b), params(fns[1]), kb}, renamed);
  if (!layout) return nullptr;
  f = std::move(*layout);
  std::vector<TermRef> body;
  for (auto [l, j] : f.body) {
    const auto loop = static_cast<std::size_t>(l);
    body.push_back(renamed_term(loop, j, f.slot_of[loop]));
  }
  std::vector<TermRef> operands{ops::Term::fn(f.params, std::move(body))};
  for (auto [loop, i] : f.operands) operands.push_back((loop == 0 ? a : b)->operand(i));
  ops::Attrs attrs = a->attrs();
  attrs.set(AttrKey::Scan, f.spec);
  try {
    return ops::Term::make(OpKind::Scan, std::move(attrs), std::move(operands));
  } catch (const ops::TypeError&) {
    return nullptr;
  }
}

// Rebuilds terms with (get I a) and (get J b) read from the fused loop.
// Not `for_each_post_order`: it enters loop bodies but not call bodies.
class Redirect {
 public:
  Redirect(TermRef a, TermRef b, TermRef fused, const FusedLoop& f)
      : loops_{a, b}, fused_(fused), f_(f) {}

  TermRef operator()(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out = t;
    if (t->kind() == OpKind::Get && (t->operand(0) == loops_[0] || t->operand(0) == loops_[1])) {
      const int l = t->operand(0) == loops_[0] ? 0 : 1;
      const auto i = static_cast<std::size_t>(t->attrs().get<std::int64_t>(AttrKey::Index));
      out = ops::Term::make(
          OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(f_.output[l][i])}}, {fused_});
    } else if (t->arity() > 0) {
      // A call's body is a def's: it stays as it is.
      std::vector<TermRef> kids;
      bool same = true;
      for (std::size_t i = 0; i < t->arity(); ++i) {
        const TermRef o = t->operand(i);
        kids.push_back(t->kind() == OpKind::Call && i == 0 ? o : (*this)(o));
        same = same && kids.back() == o;
      }
      if (!same) out = ops::Term::make(t->kind(), t->attrs(), std::move(kids));
    }
    memo_.emplace(t, out);
    return out;
  }

 private:
  std::array<TermRef, 2> loops_;
  TermRef fused_;
  const FusedLoop& f_;
  std::unordered_map<TermRef, TermRef> memo_;
};

// What running the terms costs: a DAG within each body instance (a value
// shared there is paid once), every loop's body paid per loop, times its
// trip count. The extractor's DAG cost shares equal body terms across
// different loops (they are one e-class), which runs them once; a fused
// loop runs exactly what the two loops ran, so it must be compared here.
// Not `for_each_post_order`: a body is priced once per loop running it.
class ExecutionCost {
 public:
  explicit ExecutionCost(const backend::CostModel& model) : model_(model) {}

  double operator()(std::span<const TermRef> roots, double times) {
    std::vector<TermRef> stack(roots.begin(), roots.end());
    std::unordered_set<TermRef> seen;
    std::vector<ops::Type> types;
    double total = 0;
    while (!stack.empty()) {
      const TermRef t = stack.back();
      stack.pop_back();
      if (!seen.insert(t).second) continue;
      types.clear();
      for (TermRef o : t->operands()) types.push_back(o->type());
      total += times * node_cost(t->kind(), types, t->type(), model_);
      const bool body = t->kind() == OpKind::Scan || t->kind() == OpKind::Call;
      if (body) {
        const double steps =
            t->kind() == OpKind::Scan ? static_cast<double>(model_.trip_count(t->type())) : 1.0;
        total += (*this)(t->operand(0)->operands(), times * steps);
      }
      for (std::size_t i = body ? 1 : 0; i < t->arity(); ++i) stack.push_back(t->operand(i));
    }
    return std::min(total, kGradCost);
  }

 private:
  const backend::CostModel& model_;
};

}  // namespace

std::vector<TermRef> fuse_extracted_loops(std::span<const TermRef> roots,
                                          const backend::CostModel& model) {
  std::vector<TermRef> best(roots.begin(), roots.end());
  // Fewer than two loops: nothing to pair, and no whole-graph cost to take.
  if (scans_under(best).size() < 2) return best;
  ExecutionCost execution(model);
  ops::TermFailures fails;
  double cost = execution(best, 1.0);
  int trials = 0;
  for (bool improved = true; improved && trials < kMaxTrials;) {
    improved = false;
    const std::vector<ScopedScan> scans = scans_under(best);
    for (std::size_t i = 0; i < scans.size() && !improved && trials < kMaxTrials; ++i)
      for (std::size_t j = i + 1; j < scans.size() && !improved && trials < kMaxTrials; ++j) {
        const TermRef a = scans[i].scan, b = scans[j].scan;
        // Loops fuse only within one body (or both outside every body).
        if (scans[i].scopes.size() != 1 || scans[i].scopes != scans[j].scopes) continue;
        if (!same_steps(a, b) || depends(a, b) || depends(b, a)) continue;
        if (fusion_adds_failures(a, b, fails)) continue;
        ++trials;
        FusedLoop f;
        const TermRef fused = fused_scan(a, b, f);
        if (!fused) continue;
        Redirect redirect(a, b, fused, f);
        std::vector<TermRef> candidate;
        for (TermRef r : best) candidate.push_back(redirect(r));
        const double c = execution(candidate, 1.0);
        if (c < cost) {
          best = std::move(candidate);
          cost = c;
          improved = true;
        }
      }
  }
  return best;
}

}  // namespace eqsat::rules
