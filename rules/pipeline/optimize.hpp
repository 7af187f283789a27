// The optimize pipeline: load a Graph into a tensor e-graph (one term, one
// e-node, bodies included), run the rule program's schedule step by step,
// extract the cheapest equivalent Graph with the backend's cost model, and
// report what happened (docs/language.md, `eqsat optimize`).
//
//   RuleProgram rules = load_default_rules();
//   OptimizeReport report;
//   ops::Graph better = optimize(graph, rules, &report);
//   std::cout << report.to_json().dump(2);
#pragma once

#include "rules/lang/rule_ast.hpp"
#include "rules/pipeline/explanation.hpp"

#include "backend/cost_model.hpp"
#include "egraph/extract/extractor.hpp"
#include "egraph/runner.hpp"
#include "ops/graph.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::rules {

// What one rewrite did over the whole schedule.
struct RuleReport {
  std::string name;  // a birewrite's reverse direction is NAME-rev
  std::string ruleset;
  std::size_t matches = 0;       // found by e-matching (after attribute and literal checks)
  std::size_t applications = 0;  // matches whose application changed the e-graph
  std::size_t refused = 0;       // matches refused by typed rewriting
};

// One step of the schedule.
struct PhaseReport {
  std::string step;  // "run" or "saturate"
  std::vector<std::string> rulesets;
  std::size_t iterations = 0;
  egraph::StopReason stop_reason = egraph::StopReason::Saturated;
  double seconds = 0;
  std::size_t enodes = 0, eclasses = 0;  // at the end of the step
};

struct OptimizeReport {
  std::size_t iterations = 0;  // over all steps
  std::string stop_reason;     // of the last step
  std::size_t enodes = 0, eclasses = 0;
  // Estimated ns, each shared value once, plus kUnstableCost (extract_graph.hpp)
  // for each form a stabilizing rewrite replaced (docs/architecture.md decision 11).
  double cost_before = 0, cost_after = 0;
  std::size_t unstable_before = 0, unstable_after = 0;  // such forms in each graph
  double load_seconds = 0, rewrite_seconds = 0, extract_seconds = 0, total_seconds = 0;
  std::vector<PhaseReport> phases;
  std::vector<RuleReport> rules;  // in program order
  // With OptimizeOptions::explain: per output, the steps from its input
  // term to its optimized term (not in the JSON).
  std::vector<TermExplanation> explanations;

  // The JSON report: iterations, stop_reason, enodes, eclasses, cost_before,
  // cost_after (estimated ns without the extractor's penalties, null while a
  // graph holds a grad: shown_cost.hpp), unstable_before, unstable_after,
  // seconds {load, rewrite, extract, total}, phases [...] and rules {NAME:
  // {ruleset, matches, applications, refused}}.
  nlohmann::json to_json() const;
};

// Where saturation is, after one iteration of one schedule step.
struct OptimizeProgress {
  std::size_t step = 0;   // index in the schedule
  std::string_view kind;  // "run" or "saturate"
  std::span<const std::string> rulesets;
  std::size_t iteration = 0;  // within the step, from 1
  std::size_t enodes = 0, eclasses = 0;
  double seconds = 0;  // since optimize started
};

class TensorEGraph;

struct OptimizeOptions {
  backend::CostWeights weights;
  egraph::ExtractorKind extractor = egraph::ExtractorKind::GreedyDag;
  // Command-line overrides of the schedule's limits: nodes and seconds for
  // every step, iterations for `saturate` steps only (a `run` step's
  // iteration count is what it asks for, not a limit).
  std::optional<std::size_t> node_limit, iter_limit;
  std::optional<double> time_limit;
  // Called after each iteration of each step (a progress display).
  std::function<void(const OptimizeProgress&)> progress;
  // Record why classes merge and explain each output (OptimizeReport::
  // explanations); off, nothing is recorded.
  bool explain = false;
  // Called with the saturated (clean) e-graph and the outputs' classes,
  // before extraction (an e-graph export, explore's alternatives). Adding
  // a term the e-graph holds (count_unstable) leaves it clean.
  std::function<void(TensorEGraph&, std::span<const egraph::EClassId>)> saturated;
  // The process ends after this optimization: the lowered rules are kept
  // until it exits instead of freed (support/kept_until_exit.hpp).
  bool keep_rules_until_exit = false;
};

// Runs the schedule of `rules` on `g` (loaded and rebuilt): fills the
// iterations, phases, per-rule counts, e-node and e-class counts and
// rewrite seconds of `r`; progress times count from `start`.
void saturate(TensorEGraph& g, const RuleProgram& rules, OptimizeReport& r,
              const OptimizeOptions& options, std::chrono::steady_clock::time_point start);

// The cheapest graph equivalent to `graph` that the rules find within the
// schedule's limits; inputs keep their order, outputs their names, and each
// def that an extracted call still uses keeps its name (the others are
// dropped: every call of them was inlined).
// Deterministic: the same input gives the same graph. A term that the
// constants the e-graph folds make ill-typed (an arange length folding to a
// size past 64 bits) is an ops::DiagnosticError at the term's position.
ops::Graph optimize(const ops::Graph& graph, const RuleProgram& rules,
                    OptimizeReport* report = nullptr, const OptimizeOptions& options = {});

// The bodies that calls under `roots` apply (nested calls included), in
// first-use order: the defs an optimized graph still needs.
std::vector<ops::TermRef> called_bodies(std::span<const ops::TermRef> roots);

// Rule files parsed and checked together, `use` accepting the built-in
// appliers. Throws ops::DiagnosticError listing every error.
RuleProgram load_rule_files(std::span<const std::string> paths);
// The shipped rules (compiled in: shipped_rules.hpp), parsed and checked together.
RuleProgram load_default_rules();

// Random instances per direction in the quick check of a user's rewrites.
inline constexpr std::size_t kQuickCheckAttempts = 60;

// What `--rules`, `--no-default-rules`, `--trust-rules` and `--fast-math`
// ask for.
struct RuleFileOptions {
  std::vector<std::string> user_files;  // `--rules FILE`, in order
  bool default_rules = true;            // false: `--no-default-rules`
  bool check_user_rules = true;         // false: `--trust-rules`
  bool fast_math = false;               // `--fast-math`: saturate `fast-math` too
};

struct LoadedRules {
  RuleProgram program;
  // "warning: ..." lines: a rule set of the user's files that no schedule
  // step runs; a user rewrite that check-rules' quick numeric check finds
  // unsound (with its counter-example).
  std::vector<std::string> warnings;
};

// The shipped rules plus the user's files (or the user's files alone).
// Loaded with the shipped rules, a user's rewrites and uses without
// `:ruleset` join the `user` set, which the default schedule saturates with
// the shipped sets. With `fast_math`, every saturate step also runs the
// `fast-math` set (a warning when no loaded file declares it). Throws
// ops::DiagnosticError listing every error.
LoadedRules load_rules(const RuleFileOptions& options);

}  // namespace eqsat::rules
