// Runner: equality saturation's outer loop. Each iteration runs the hooks,
// searches every rule (as the scheduler allows) on the e-graph as the
// iteration found it, applies all matches, then rebuilds. (Rule r's matches
// are applied before rule r + 1 is searched, and a rule the scheduler does
// not limit has its matches applied in batches while its search goes on;
// since e-matching reads the snapshot of the last rebuild, this applies
// exactly what searching every rule first would, with few matches in
// memory, and a limit reached during apply also ends the searching.) It stops when an iteration
// changes nothing (saturated) or a limit is reached; limits are checked before each iteration and
// also inside one: the node limit after every applied match (so the e-graph ends at most one
// right-hand side above it), the time limit after every rule's search and every 64 applied matches.
// The e-graph is always rebuilt (consistent) when `run` returns.
//
// Semi-naive application: once all of a rule's matches in a snapshot were
// applied, its later searches count but do not apply the matches that
// snapshot already held (EGraph::node_stamp), for rules where applying
// one again would change nothing (Rewrite::skips_seen: a pattern, no
// condition) and explanations off. egg applies them again, which changes
// nothing but can add e-nodes congruent to existing ones (a match's
// classes merged since), left for the rebuild to merge: so the e-graph
// after each iteration (up to the numbering of classes) and the matches
// the scheduler counts are the same either way, while the node limit, checked during an iteration,
// counts fewer such duplicates, and which applications count as changing (a duplicate made by a
// seen match can leave a later match nothing to add) may differ.
//
// Defaults (egg's): 30 iterations, 10,000 e-nodes, 5 seconds, and the
// BackoffScheduler (match limit 1,000, ban length 5).
//
//   EGraph g;
//   EClassId root = g.add_expr(RecExpr::parse("(+ a (+ b c))"));
//   std::vector<Rewrite> rules = {Rewrite::parse("comm", "(+ ?a ?b)", "(+ ?b ?a)")};
//   Runner runner(g, RunnerConfig{.iter_limit = 10});
//   runner.add_hook([&](Runner& r) -> std::optional<std::string> {
//     if (r.egraph().num_classes() > 100) return "too many classes";
//     return std::nullopt;
//   });
//   RunReport report = runner.run(rules);
//   std::cout << report.to_string();
#pragma once

#include "egraph/egraph.hpp"
#include "egraph/rewrite.hpp"
#include "egraph/scheduler.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::egraph {

enum class StopReason { Saturated, IterationLimit, NodeLimit, TimeLimit, Other };

std::string_view to_string(StopReason r);

struct RunnerConfig {
  std::size_t iter_limit = 30;     // iterations
  std::size_t node_limit = 10000;  // e-nodes (EGraph::num_nodes)
  double time_limit = 5.0;         // seconds
  // Semi-naive application (above); off, every match is applied as egg does.
  bool skip_seen_matches = true;
};

// What one rule did in one iteration.
struct RuleRecord {
  std::size_t matches = 0;  // found (capped by the scheduler's match limit; a
                            // search cut short by a limit counts what it found)
  std::size_t applied = 0;  // matches whose application changed the e-graph
  std::size_t skipped = 0;  // matches not applied: seen before (semi-naive)
  bool banned = false;      // skipped or its matches dropped by the scheduler
};

struct Iteration {
  std::size_t enodes_before = 0, eclasses_before = 0;  // at the start
  std::size_t enodes = 0, eclasses = 0;                // after the rebuild
  std::vector<RuleRecord> rules;                       // in rule order
  double hook_seconds = 0, search_seconds = 0, apply_seconds = 0, rebuild_seconds = 0;
  std::size_t rebuild_merges = 0;  // congruences found by the rebuild
};

struct RunReport {
  StopReason stop_reason = StopReason::Other;
  std::string stop_message;  // the hook's message for Other, else a sentence
  std::vector<std::string> rule_names;
  std::vector<Iteration> iterations;
  std::size_t enodes = 0, eclasses = 0;  // at the end
  double seconds = 0;                    // wall time of the run

  double search_seconds() const;
  double apply_seconds() const;
  double rebuild_seconds() const;
  // Summary, per-rule totals and one line per iteration. `with_times`
  // false leaves timings out (for comparing runs).
  std::string to_string(bool with_times = true) const;
};

class Runner {
 public:
  // A hook runs before each iteration; returning a message stops the run
  // with StopReason::Other. Hooks may modify the e-graph.
  using Hook = std::function<std::optional<std::string>(Runner&)>;

  explicit Runner(EGraph& g, RunnerConfig config = {});

  Runner& set_scheduler(std::unique_ptr<Scheduler> s) {
    scheduler_ = std::move(s);
    return *this;
  }
  Runner& add_hook(Hook h) {
    hooks_.push_back(std::move(h));
    return *this;
  }

  // Runs the rules until a stop reason; the e-graph is clean afterwards.
  // Rule names must be unique (an InternalError otherwise): reports
  // and scheduler settings go by name.
  RunReport run(const std::vector<Rewrite>& rules);
  RunReport run(const std::vector<const Rewrite*>& rules);

  EGraph& egraph() { return g_; }
  const RunnerConfig& config() const { return config_; }
  // The run so far (for hooks).
  const RunReport& report() const { return report_; }
  Scheduler& scheduler() { return *scheduler_; }

 private:
  double elapsed() const;
  std::optional<StopReason> check_limits(std::size_t iteration) const;
  void stop(StopReason reason, std::string message);
  void run_hooks(Iteration& it);
  // The rule whose matches are being applied, and what it did so far.
  struct RuleInProgress {
    const Rewrite& rule;
    std::size_t index;
    Iteration& it;
    double apply_seconds = 0;
  };
  bool apply_batch(RuleInProgress& rule, Matches& batch);
  // t: when the rule's search started; set to when its work ended.
  void run_rule(const Rewrite& rule, std::size_t iteration, std::size_t r, Matches& matches,
                Iteration& it, std::chrono::steady_clock::time_point& t);

  EGraph& g_;
  RunnerConfig config_;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<Hook> hooks_;
  RunReport report_;
  std::chrono::steady_clock::time_point start_;
  bool stopped_ = false;
  // By rule: the last snapshot all of whose matches were applied (0: none).
  std::vector<std::uint32_t> seen_through_;
};

}  // namespace eqsat::egraph
