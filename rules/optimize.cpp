#include "optimize.hpp"

#include "builtin_appliers.hpp"
#include "extract_graph.hpp"
#include "rule_lowering.hpp"
#include "rule_parser.hpp"
#include "shipped_rules.hpp"
#include "tensor_egraph.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_set>

namespace eqsat::rules {

namespace {

// The bodies that calls under `roots` apply, in first-use order.
std::vector<ops::TermRef> called_bodies(std::span<const ops::TermRef> roots) {
  std::vector<ops::TermRef> bodies, stack(roots.rbegin(), roots.rend());
  std::unordered_set<ops::TermRef> seen;
  while (!stack.empty()) {
    const ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    if (t->kind() == ops::OpKind::Call && std::ranges::find(bodies, t->operand(0)) == bodies.end())
      bodies.push_back(t->operand(0));
    for (auto it = t->operands().rbegin(); it != t->operands().rend(); ++it) stack.push_back(*it);
  }
  return bodies;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

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

  TensorEGraph g;
  std::vector<egraph::EClassId> roots;
  for (ops::TermRef t : root_terms) roots.push_back(g.add_term(t));
  std::vector<egraph::EClassId> def_classes;
  for (const auto& d : graph.defs) def_classes.push_back(g.add_term(d.term));
  g.egraph().rebuild();
  r.load_seconds = seconds_since(start);

  const auto rewrite_start = std::chrono::steady_clock::now();
  LoweredRules lowered(rules, g);
  std::vector<RuleReport> per_rule(lowered.rewrites().size());
  for (std::size_t i = 0; i < per_rule.size(); ++i)
    per_rule[i] = {lowered.rewrites()[i].name(), lowered.ruleset(i), 0, 0, 0};
  for (const ScheduleStep& step : rules.schedule().steps) {
    const auto selected = lowered.select(step.rulesets);
    egraph::RunnerConfig config;
    config.iter_limit = static_cast<std::size_t>(step.limits.iterations);
    config.node_limit = static_cast<std::size_t>(step.limits.nodes);
    config.time_limit = step.limits.seconds;
    egraph::Runner runner(g.egraph(), config);
    runner.set_scheduler(std::make_unique<egraph::BackoffScheduler>());
    const egraph::RunReport run = runner.run(selected);
    for (const auto& it : run.iterations)
      for (std::size_t k = 0; k < it.rules.size() && k < selected.size(); ++k) {
        const std::size_t i = static_cast<std::size_t>(selected[k] - lowered.rewrites().data());
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
  for (std::size_t i = 0; i < per_rule.size(); ++i) per_rule[i].refused = lowered.refused(i);
  r.rules = std::move(per_rule);
  r.enodes = g.egraph().num_nodes();
  r.eclasses = g.egraph().num_classes();
  r.rewrite_seconds = seconds_since(rewrite_start);

  const auto extract_start = std::chrono::steady_clock::now();
  const ExtractedTerms best = extract_terms(g, roots, model, options.extractor);
  r.cost_after = dag_cost(best.roots, model);
  if (r.cost_after > r.cost_before) {
    // The extractor is a heuristic (greedy-dag does not see every sharing):
    // when what it picked costs more than the original, which is always one
    // of the equivalent graphs, keep the original.
    r.cost_after = r.cost_before;
    r.extract_seconds = seconds_since(extract_start);
    r.total_seconds = seconds_since(start);
    return graph;
  }
  ops::Graph out;
  out.inputs = graph.inputs;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    out.outputs.push_back({graph.outputs[i].name, best.roots[i]});
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
  j["cost_before"] = cost_before;
  j["cost_after"] = cost_after;
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
  return parse_rules(shipped_rule_sources(), builtin_applier_names());
}

}  // namespace eqsat::rules
