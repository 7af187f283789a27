#include "egraph/runner.hpp"

#include "support/internal_error.hpp"

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <limits>
#include <string_view>

namespace eqsat::egraph {

using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::Saturated:
      return "saturated";
    case StopReason::IterationLimit:
      return "iteration limit";
    case StopReason::NodeLimit:
      return "node limit";
    case StopReason::TimeLimit:
      return "time limit";
    case StopReason::Other:
      return "other";
  }
  return "?";
}

Runner::Runner(EGraph& g, RunnerConfig config)
    : g_(g), config_(config), scheduler_(std::make_unique<BackoffScheduler>()) {}

double Runner::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

std::optional<StopReason> Runner::check_limits(std::size_t iteration) const {
  if (elapsed() > config_.time_limit) return StopReason::TimeLimit;
  if (g_.num_nodes() > config_.node_limit) return StopReason::NodeLimit;
  if (iteration >= config_.iter_limit) return StopReason::IterationLimit;
  return std::nullopt;
}

void Runner::stop(StopReason reason, std::string message) {
  if (stopped_) return;
  stopped_ = true;
  report_.stop_reason = reason;
  if (message.empty()) {
    switch (reason) {
      case StopReason::Saturated:
        message = "saturated: an iteration changed nothing";
        break;
      case StopReason::IterationLimit:
        message = fmt::format("iteration limit {} reached", config_.iter_limit);
        break;
      case StopReason::NodeLimit:
        message =
            fmt::format("node limit {} reached ({} e-nodes)", config_.node_limit, g_.num_nodes());
        break;
      case StopReason::TimeLimit:
        message = fmt::format("time limit {} s reached", config_.time_limit);
        break;
      case StopReason::Other:
        break;
    }
  }
  report_.stop_message = std::move(message);
}

// Runs the hooks before an iteration; a hook's message stops the run.
void Runner::run_hooks(Iteration& it) {
  const auto t = Clock::now();
  for (Hook& h : hooks_) {
    if (std::optional<std::string> msg = h(*this)) {
      stop(StopReason::Other, *msg);
      break;
    }
  }
  if (!g_.clean()) g_.rebuild();  // hooks may have changed the e-graph
  it.hook_seconds = seconds_since(t);
}

// Applies a batch of rule `rule`'s matches; false once a limit stopped the run.
bool Runner::apply_batch(RuleInProgress& rule, Matches& batch) {
  const auto ta = Clock::now();
  const Symbol outer = g_.set_reason(rule.rule.reason());
  std::size_t& applied = rule.it.rules[rule.index].applied;
  for (std::size_t k = 0; k < batch.size(); ++k) {
    if (rule.rule.apply_match(g_, batch, k)) ++applied;
    if (g_.num_nodes() > config_.node_limit) {
      stop(StopReason::NodeLimit, "");
      break;
    }
    if ((k & 63) == 63 && elapsed() > config_.time_limit) {
      stop(StopReason::TimeLimit, "");
      break;
    }
  }
  g_.set_reason(outer);
  rule.apply_seconds += seconds_since(ta);
  return !stopped_;
}

// Searches rule r and applies its matches, recording both in `it`.
// Searches read the snapshot of the last rebuild, so applying matches
// while the search goes on, or rule r's before rule r + 1 is searched,
// applies exactly what searching everything first would; it keeps few
// matches in memory and skips the searching a limit makes useless.
void Runner::run_rule(const Rewrite& rule, std::size_t iteration, std::size_t r, Matches& matches,
                      Iteration& it, Clock::time_point& t) {
  matches.clear();
  std::size_t limit = scheduler_->match_limit(iteration, r);
  if (limit == 0) {
    it.rules[r].banned = true;
    return;
  }
  RuleInProgress progress{rule, r, it};
  // An unlimited rule cannot be refused: its matches stream into apply.
  // (The sink holds two pointers: std::function keeps it without allocating.)
  const bool stream = limit == std::numeric_limits<std::size_t>::max();
  MatchSink sink = [this, &progress](Matches& batch) { return apply_batch(progress, batch); };
  // Semi-naive: the matches of the last snapshot whose matches were all
  // applied are counted (the scheduler sees every match, as egg's does)
  // but not applied again. With explanations on, every match is applied,
  // so that proofs record the same terms as without the skip.
  const std::uint32_t snapshot = g_.snapshot_number();
  const std::uint32_t seen =
      config_.skip_seen_matches && rule.skips_seen() && !g_.explaining() ? seen_through_[r] : 0;
  std::size_t found =
      rule.search(g_, matches, limit, stream ? &sink : nullptr, seen, &it.rules[r].skipped);
  it.rules[r].matches = found;
  bool complete = true;
  if (!scheduler_->accept(iteration, r, found)) {
    it.rules[r].banned = true;
    matches.clear();
    complete = false;
  }
  // One clock reading per rule: it ends this rule's search and starts the
  // next one's (a rule with few matches takes well under a microsecond).
  const Clock::time_point now = Clock::now();
  it.search_seconds += std::chrono::duration<double>(now - t).count() - progress.apply_seconds;
  t = now;
  if (!stopped_ && std::chrono::duration<double>(now - start_).count() > config_.time_limit)
    stop(StopReason::TimeLimit, "");
  if (!stopped_ && !matches.empty()) {
    apply_batch(progress, matches);
    t = Clock::now();
  }
  if (complete && !stopped_) seen_through_[r] = snapshot;
  it.apply_seconds += progress.apply_seconds;
}

RunReport Runner::run(const std::vector<Rewrite>& rules) {
  std::vector<const Rewrite*> ptrs;
  ptrs.reserve(rules.size());
  for (const Rewrite& r : rules) ptrs.push_back(&r);
  return run(ptrs);
}

RunReport Runner::run(const std::vector<const Rewrite*>& rules) {
  {
    // Hashed: comparing every pair of names cost more than a small
    // optimization's whole saturation with the shipped rules.
    absl::flat_hash_set<std::string_view> names;
    names.reserve(rules.size());
    for (const Rewrite* r : rules)
      EQSAT_ASSERT(names.insert(r->name()).second)
          << "Runner::run: two rules are named " << r->name();
  }
  start_ = Clock::now();
  stopped_ = false;
  report_ = RunReport{};
  for (const Rewrite* r : rules) report_.rule_names.push_back(r->name());
  scheduler_->start(rules);
  seen_through_.assign(rules.size(), 0);
  if (!g_.clean()) g_.rebuild();
  Matches matches;

  for (std::size_t i = 0; !stopped_; ++i) {
    if (std::optional<StopReason> s = check_limits(i)) {
      stop(*s, "");
      break;
    }
    Iteration it;
    it.enodes_before = g_.num_nodes();
    it.eclasses_before = g_.num_classes();
    it.rules.resize(rules.size());
    const std::uint64_t version_before = g_.version();

    run_hooks(it);
    if (stopped_) break;
    Clock::time_point t_rule = Clock::now();
    for (std::size_t r = 0; r < rules.size() && !stopped_; ++r)
      run_rule(*rules[r], i, r, matches, it, t_rule);

    const auto t = Clock::now();
    it.rebuild_merges = g_.rebuild();
    it.rebuild_seconds = seconds_since(t);
    it.enodes = g_.num_nodes();
    it.eclasses = g_.num_classes();
    if (!stopped_ && g_.version() == version_before && scheduler_->can_stop(i)) {
      stop(StopReason::Saturated, "");
    }
    report_.iterations.push_back(std::move(it));
  }
  if (!g_.clean()) g_.rebuild();
  report_.enodes = g_.num_nodes();
  report_.eclasses = g_.num_classes();
  report_.seconds = elapsed();
  return report_;
}

double RunReport::search_seconds() const {
  double s = 0;
  for (const Iteration& it : iterations) s += it.search_seconds;
  return s;
}
double RunReport::apply_seconds() const {
  double s = 0;
  for (const Iteration& it : iterations) s += it.apply_seconds;
  return s;
}
double RunReport::rebuild_seconds() const {
  double s = 0;
  for (const Iteration& it : iterations) s += it.rebuild_seconds;
  return s;
}

std::string RunReport::to_string(bool with_times) const {
  std::string out = "Runner report\n=============\n";
  out += fmt::format("  Stop reason: {} ({})\n", egraph::to_string(stop_reason), stop_message);
  out += fmt::format("  Iterations: {}\n", iterations.size());
  out += fmt::format("  E-graph: {} e-nodes, {} e-classes\n", enodes, eclasses);
  if (with_times) {
    out += fmt::format("  Time: {:.6f} s (search {:.6f}, apply {:.6f}, rebuild {:.6f})\n", seconds,
                       search_seconds(), apply_seconds(), rebuild_seconds());
  }
  out += "  Rules (matches / applied / skipped as seen, banned iterations):\n";
  for (std::size_t r = 0; r < rule_names.size(); ++r) {
    std::size_t m = 0, a = 0, k = 0, b = 0;
    for (const Iteration& it : iterations) {
      m += it.rules[r].matches;
      a += it.rules[r].applied;
      k += it.rules[r].skipped;
      b += it.rules[r].banned;
    }
    out += fmt::format("    {:<24} {:>9} / {:<9} / {:<9} {}\n", rule_names[r], m, a, k, b);
  }
  out += "  Iterations (e-nodes, e-classes after; applied; rebuild merges";
  out += with_times ? "; search/apply/rebuild s):\n" : "):\n";
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    const Iteration& it = iterations[i];
    std::size_t applied = 0;
    for (const RuleRecord& r : it.rules) applied += r.applied;
    out += fmt::format("    {:>3}: {:>8} {:>8} {:>8} {:>6}", i, it.enodes, it.eclasses, applied,
                       it.rebuild_merges);
    if (with_times) {
      out += fmt::format("  {:.6f} {:.6f} {:.6f}", it.search_seconds, it.apply_seconds,
                         it.rebuild_seconds);
    }
    out += '\n';
  }
  return out;
}

}  // namespace eqsat::egraph
