#include "rules/pipeline/optimize.hpp"
#include "rules/pipeline/shipped_program.hpp"
#include "rules/pipeline/shown_cost.hpp"
#include "rules/pipeline/unexpanded_grads.hpp"

#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/rule_check.hpp"
#include "rules/lang/rule_lowering.hpp"
#include "rules/lang/rule_parser.hpp"
#include "rules/lang/shipped_rules.hpp"
#include "rules/loops/scan_fusion_extracted.hpp"
#include "rules/tensor/extract_graph.hpp"
#include "rules/tensor/tensor_egraph.hpp"

#include "ops/post_order.hpp"
#include "support/kept_until_exit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace eqsat::rules {

using ast::Rewrite;
using ast::ScheduleStep;
using ast::Use;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<ops::TermRef> called_bodies(std::span<const ops::TermRef> roots) {
  std::vector<ops::TermRef> bodies;
  auto reach = [&](ops::TermRef t) {  // in pre-order: bodies in first-reached order
    if (t->kind() == ops::OpKind::Call && std::ranges::find(bodies, t->operand(0)) == bodies.end())
      bodies.push_back(t->operand(0));
    return true;
  };
  ops::for_each_post_order(
      roots, ops::Bodies::Enter, [](ops::TermRef) {}, reach);
  return bodies;
}

namespace {

// Why each output's term `from[i]` equals `to[i]` (explanations on).
std::vector<TermExplanation> explain_outputs(TensorEGraph& g, const ops::Graph& graph,
                                             std::span<const ops::TermRef> from,
                                             std::span<const ops::TermRef> to) {
  std::vector<TermExplanation> out;
  for (std::size_t i = 0; i < from.size(); ++i) {
    out.push_back(explain_terms(g, from[i], to[i]));
    out.back().name = graph.outputs[i].name;
  }
  return out;
}

}  // namespace

void saturate(TensorEGraph& g, const RuleProgram& rules, OptimizeReport& r,
              const OptimizeOptions& options, std::chrono::steady_clock::time_point start) {
  const auto rewrite_start = std::chrono::steady_clock::now();
  auto kept = std::make_unique<LoweredRules>(rules, g);
  const LoweredRules& lowered = *kept;
  // One report per rule name (a `:comm` rule lowers to several rewrites).
  std::vector<RuleReport> per_rule;
  std::vector<std::size_t> report_of(lowered.rewrites().size());
  std::unordered_map<std::string_view, std::size_t> report_named;  // names live in `lowered`
  report_named.reserve(report_of.size());
  for (std::size_t i = 0; i < report_of.size(); ++i) {
    const std::string& name = lowered.rule_name(i);
    const auto [at, fresh] = report_named.try_emplace(name, per_rule.size());
    report_of[i] = at->second;
    if (fresh) per_rule.push_back({name, lowered.ruleset(i), 0, 0, 0});
  }
  // The rules of sets no step runs are not lowered; the report lists them.
  for (const Rewrite& rw : rules.rewrites())
    if (!scheduled(rules, rw.ruleset)) {
      per_rule.push_back({rw.name, rw.ruleset, 0, 0, 0});
      if (rw.bidirectional) per_rule.push_back({rw.name + "-rev", rw.ruleset, 0, 0, 0});
    }
  for (const Use& u : rules.uses())
    if (!scheduled(rules, u.ruleset)) per_rule.push_back({u.applier, u.ruleset, 0, 0, 0});
  const auto& steps = rules.schedule().steps;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const ScheduleStep& step = steps[s];
    const auto selected = lowered.select(step.rulesets);
    const bool saturating = step.kind == ScheduleStep::Kind::Saturate;
    egraph::RunnerConfig config;
    config.iter_limit = static_cast<std::size_t>(step.limits.iterations);
    config.node_limit = static_cast<std::size_t>(step.limits.nodes);
    config.time_limit = step.limits.seconds;
    if (options.iter_limit && saturating) config.iter_limit = *options.iter_limit;
    if (options.node_limit) config.node_limit = *options.node_limit;
    if (options.time_limit) config.time_limit = *options.time_limit;
    egraph::Runner runner(g.egraph(), config);
    // A rule is throttled when it matches more often than the graph has e-nodes
    // (at least egg's 1,000): one match per node (commutativity over a large
    // graph) is no explosion, and banning it would cost one more search of the
    // whole graph per doubling of its size.
    runner.set_scheduler(std::make_unique<egraph::BackoffScheduler>(
        std::max<std::size_t>(1000, g.egraph().num_nodes())));
    // Progress after each iteration: the hook before the next one, then the end of the step.
    auto tell = [&](std::size_t done) {
      if (!options.progress || done == 0) return;
      options.progress({s, saturating ? "saturate" : "run", step.rulesets, done,
                        g.egraph().num_nodes(), g.egraph().num_classes(), seconds_since(start)});
    };
    if (options.progress)
      runner.add_hook([&](egraph::Runner& r) -> std::optional<std::string> {
        tell(r.report().iterations.size());
        return std::nullopt;
      });
    const egraph::RunReport run = runner.run(selected);
    tell(run.iterations.size());
    for (const auto& it : run.iterations)
      for (std::size_t k = 0; k < it.rules.size() && k < selected.size(); ++k) {
        const std::size_t i =
            report_of[static_cast<std::size_t>(selected[k] - lowered.rewrites().data())];
        per_rule[i].matches += it.rules[k].matches;
        per_rule[i].applications += it.rules[k].applied;
      }
    PhaseReport phase;
    phase.step = step.kind == ScheduleStep::Kind::Run ? "run" : "saturate";
    phase.rulesets = step.rulesets;
    phase.iterations = run.iterations.size();
    phase.stop_reason = run.stop_reason;
    phase.seconds = run.seconds;
    phase.enodes = run.enodes;
    phase.eclasses = run.eclasses;
    r.iterations += phase.iterations;
    r.stop_reason = std::string(egraph::to_string(run.stop_reason));
    r.phases.push_back(std::move(phase));
  }
  for (std::size_t i = 0; i < report_of.size(); ++i)
    per_rule[report_of[i]].refused += lowered.refused(i);
  r.rules = std::move(per_rule);
  r.enodes = g.egraph().num_nodes();
  r.eclasses = g.egraph().num_classes();
  r.rewrite_seconds = seconds_since(rewrite_start);
  if (options.keep_rules_until_exit) support::keep_until_exit(std::move(kept));
}

ops::Graph optimize(const ops::Graph& graph, const RuleProgram& rules, OptimizeReport* report,
                    const OptimizeOptions& options) {
  OptimizeReport local;
  OptimizeReport& r = report ? *report : local;
  r = OptimizeReport{};
  const auto start = std::chrono::steady_clock::now();
  const backend::CostModel model(options.weights);

  // Roots: the outputs (a called def's body is reached through its calls).
  std::vector<ops::TermRef> root_terms;
  for (const auto& o : graph.outputs) root_terms.push_back(o.term);
  r.cost_before = dag_cost(root_terms, model);

  TensorEGraph g(options.explain ? egraph::Explanations::On : egraph::Explanations::Off);
  std::vector<egraph::EClassId> roots = add_graph(g, graph);
  const std::vector<egraph::EClassId> def_classes(roots.begin() + graph.outputs.size(),
                                                  roots.end());
  roots.resize(graph.outputs.size());
  g.egraph().rebuild();
  r.load_seconds = seconds_since(start);

  saturate(g, rules, r, options, start);

  if (options.saturated) options.saturated(g, roots);
  const auto extract_start = std::chrono::steady_clock::now();
  // A stable form always wins (docs/architecture.md decision 11): a form a stabilizing
  // rewrite replaced is left out of every class that has another.
  ExtractedTerms best =
      extract_terms(g, roots, model, options.extractor,
                    [](const TensorEGraph& t, egraph::ENodeId n) { return t.unstable(n); });
  // A grad extraction could not avoid was refused: say where and why.
  WrittenLocations where(g, graph);
  refuse_unexpanded_grads(best.roots, where, graph);
  // A stable form always wins (docs/architecture.md decision 11): unstable terms count
  // as extraction counts them, in the report too.
  r.unstable_before = count_unstable(g, root_terms);
  r.unstable_after = count_unstable(g, best.roots);
  r.cost_before += kUnstableCost * static_cast<double>(r.unstable_before);
  r.cost_after =
      dag_cost(best.roots, model) + kUnstableCost * static_cast<double>(r.unstable_after);
  if (r.cost_after > r.cost_before) {
    // The extractor is a heuristic (greedy-dag does not see every sharing):
    // when what it picked costs more than the original, which is always one
    // of the equivalent graphs, keep the original.
    r.cost_after = r.cost_before;
    r.unstable_after = r.unstable_before;
    if (options.explain) r.explanations = explain_outputs(g, graph, root_terms, root_terms);
    r.extract_seconds = seconds_since(extract_start);
    r.total_seconds = seconds_since(start);
    return graph;
  }
  if (options.explain) r.explanations = explain_outputs(g, graph, root_terms, best.roots);
  if (std::ranges::any_of(rules.uses(), [](const Use& u) { return u.applier == "scan-fusion"; })) {
    std::vector<ops::TermRef> fused = fuse_extracted_loops(best.roots, model);
    if (fused != best.roots) {
      best.roots = std::move(fused);
      r.cost_after =
          dag_cost(best.roots, model) + kUnstableCost * static_cast<double>(r.unstable_after);
    }
    // Fusion after extraction is outside the e-graph: one step at the root.
    for (std::size_t i = 0; i < r.explanations.size(); ++i) {
      TermExplanation& e = r.explanations[i];
      if (best.roots[i] == e.end) continue;
      e.steps.push_back({"scan-fusion", true, {}, e.end, best.roots[i]});
      e.end = best.roots[i];
    }
  }
  ops::Graph out;
  out.inputs = graph.inputs;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    out.outputs.push_back({graph.outputs[i].name, best.roots[i]});
  // A rewritten term fails at run time where its class was written.
  where.carry(best.roots, out.locations);
  // A def stays, under its name, while some extracted call still uses it.
  const auto called = called_bodies(best.roots);
  for (std::size_t i = 0; i < graph.defs.size(); ++i)
    for (ops::TermRef fn : called)
      if (g.egraph().find(g.add_term(fn)) == g.egraph().find(def_classes[i])) {
        out.defs.push_back({graph.defs[i].name, fn});
        break;
      }
  r.extract_seconds = seconds_since(extract_start);
  r.total_seconds = seconds_since(start);
  return out;
}

nlohmann::json OptimizeReport::to_json() const {
  nlohmann::json j;
  j["iterations"] = iterations;
  j["stop_reason"] = stop_reason;
  j["enodes"] = enodes;
  j["eclasses"] = eclasses;
  // Shown without the extractor's penalties (shown_cost.hpp): the unstable
  // forms are counted apart, and a graph holding a grad has no estimate (null).
  const auto shown = [](double cost) {
    const std::optional<double> ns = shown_cost(cost).ns;
    return ns ? nlohmann::json(*ns) : nlohmann::json(nullptr);
  };
  j["cost_before"] = shown(cost_before);
  j["cost_after"] = shown(cost_after);
  j["unstable_before"] = unstable_before;
  j["unstable_after"] = unstable_after;
  j["seconds"] = {{"load", load_seconds},
                  {"rewrite", rewrite_seconds},
                  {"extract", extract_seconds},
                  {"total", total_seconds}};
  j["phases"] = nlohmann::json::array();
  for (const auto& p : phases)
    j["phases"].push_back({{"step", p.step},
                           {"rulesets", p.rulesets},
                           {"iterations", p.iterations},
                           {"stop_reason", std::string(egraph::to_string(p.stop_reason))},
                           {"seconds", p.seconds},
                           {"enodes", p.enodes},
                           {"eclasses", p.eclasses}});
  j["rules"] = nlohmann::json::object();
  for (const auto& rule : rules)
    j["rules"][rule.name] = {{"ruleset", rule.ruleset},
                             {"matches", rule.matches},
                             {"applications", rule.applications},
                             {"refused", rule.refused}};
  return j;
}

RuleProgram load_rule_files(std::span<const std::string> paths) {
  return parse_rule_files(paths, builtin_applier_names());
}

RuleProgram load_default_rules() {
  return shipped_program();
}

namespace {

// The shipped file that `path` is a copy of (`--rules rules/*.rules` from a
// source tree): same file name, same text. nullptr otherwise.
const RuleSource* shipped_copy(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  for (const RuleSource& s : shipped_rule_sources()) {
    if (std::filesystem::path(s.file).filename() != name) continue;
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return in && text.str() == s.text ? &s : nullptr;
  }
  return nullptr;
}

}  // namespace

LoadedRules load_rules(const RuleFileOptions& options) {
  // A shipped file named with --rules is loaded once, as a shipped file:
  // with the default rules it is one of them, without them it is in `shipped`.
  std::vector<RuleSource> shipped;
  std::vector<RuleFile> files;
  std::vector<std::string> user_files;
  bool default_schedule = options.default_rules;
  for (const auto& f : options.user_files) {
    if (const RuleSource* s = shipped_copy(f)) {
      default_schedule = default_schedule || s->file == "rules/default.rules";
      if (!options.default_rules) shipped.push_back(*s);
      continue;
    }
    user_files.push_back(f);
  }
  const std::string user_set = default_schedule ? "user" : "default";
  for (const auto& f : user_files) files.push_back({f, user_set});
  // The whole shipped set is not parsed again: its program was made at build time.
  LoadedRules out{options.default_rules
                      ? parse_rule_files(files, builtin_applier_names(), shipped_program(),
                                         shipped_rule_sources())
                      : parse_rule_files(files, builtin_applier_names(), shipped),
                  {}};
  const RuleProgram& p = out.program;
  auto from_user = [&](const ops::SourceLocation& where) {
    return std::ranges::find(user_files, where.file.str()) != user_files.end();
  };
  // Rule sets holding a user's rewrite or use that no schedule step runs.
  std::vector<std::string> sets;
  for (const Rewrite& r : p.rewrites())
    if (from_user(r.where)) sets.push_back(r.ruleset);
  for (const Use& u : p.uses())
    if (from_user(u.where)) sets.push_back(u.ruleset);
  std::vector<std::string> warned;
  for (const std::string& set : sets) {
    const bool scheduled = std::ranges::any_of(p.schedule().steps, [&](const ScheduleStep& s) {
      return std::ranges::find(s.rulesets, set) != s.rulesets.end();
    });
    if (scheduled || std::ranges::find(warned, set) != warned.end()) continue;
    warned.push_back(set);
    out.warnings.push_back(fmt::format(
        "warning: rule set '{}' is run by no schedule step: its rules never apply", set));
  }
  if (options.check_user_rules) {
    RuleCheckOptions quick;
    quick.attempts = kQuickCheckAttempts;
    for (const Rewrite& r : p.rewrites()) {
      if (!from_user(r.where)) continue;
      const RuleVerdict v = check_rule(r, quick);
      if (v.kind == RuleVerdict::Kind::Unsound)
        out.warnings.push_back(fmt::format(
            "{}: warning: rule {} fails check-rules' numeric check (--trust-rules to skip it): {}",
            r.where.text(), r.name, v.counterexample));
    }
  }
  if (options.fast_math) {
    if (p.has_ruleset("fast-math"))
      out.program = p.saturating_also("fast-math");
    else
      out.warnings.push_back(
          "warning: --fast-math: no rule file loaded declares the rule set 'fast-math'");
  }
  return out;
}

}  // namespace eqsat::rules
