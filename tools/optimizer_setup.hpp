// What every command that saturates a graph with the rules sets up alike
// (`optimize`, `explore`, `html`, `dot --egraph`, `explain`): the rule file
// flags, the cost profile and the saturation flags (optimize_flags.hpp);
// the rules loaded with their warnings on stderr; the optimizer's options;
// and a saturation's failures (no acyclic term, out of memory) reported the
// same way by each.
#pragma once

#include "optimize_flags.hpp"
#include "output_paths.hpp"

#include "rules/pipeline/optimize.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {

struct OptimizerSetup {
  RuleFileFlags rules;
  SaturationFlags saturation;
  std::string cost_profile;  // --cost-profile FILE, when the command has it

  // Adds `--cost-profile FILE` to `cmd`: the command's cost weights are
  // then read from it, or from the calibrated default profile.
  void add_cost_profile_to(CLI::App& cmd);

  // The files the command reads, for check_outputs: `graph`, the files it
  // loads, the rule files and the cost profile.
  std::vector<InputFile> inputs(const std::string& graph) const;

  // Loads the rule files; their warnings go to stderr.
  rules::RuleProgram load_rules() const;

  // The optimizer's options: the cost weights (with --cost-profile) and
  // the saturation overrides and progress display. Nullopt after reporting
  // a cost profile that cannot be read on stderr.
  std::optional<rules::OptimizeOptions> options();

  // Runs `work`, a saturation of `graph_file` that fills `report` and
  // returns an exit status, then ends the progress display and prints the
  // limit warnings. An output with no acyclic term and running out of memory
  // are reported as user errors (exit 1).
  int saturate(const std::string& graph_file, const rules::OptimizeReport& report,
               const std::function<int()>& work);

 private:
  bool reads_cost_profile_ = false;
};

}  // namespace eqsat::tools
