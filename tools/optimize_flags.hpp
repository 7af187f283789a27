// The flags every command that optimizes shares. The rule files:
// `--rules FILE` (repeatable), `--no-default-rules`, `--trust-rules`,
// `--fast-math` (the default schedule plus the `fast-math` set); the cost
// model's weights: `--cost-profile FILE`.
//
// The saturation flags every command that optimizes shares (`optimize`,
// `explore`, `dot --egraph`, `html`): `--node-limit`, `--iter-limit`,
// `--time-limit` override the schedule's limits, `--quiet` hides progress,
// `--memory-limit SIZE` (default: the memory available when saturation
// starts) stops a saturation whose process holds more after an iteration.
// That, or an allocation the system refuses, is reported as running out of
// memory (out_of_memory): the e-graph's size and the limits to set.
// Progress: once an optimization has run for a second, each iteration of
// each schedule step is shown on stderr (one line rewritten in place on a
// terminal, one line per iteration otherwise). After the run, a step that a
// limit stopped before saturation gets a one-line warning saying which limit
// and how to raise it.
#pragma once

#include "output_paths.hpp"

#include "rules/pipeline/optimize.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {

struct RuleFileFlags {
  std::vector<std::string> files;
  bool no_default_rules = false;
  bool trust_rules = false;
  bool fast_math = false;

  void add_to(CLI::App& cmd);
  rules::RuleFileOptions options() const {
    return {files, !no_default_rules, !trust_rules, fast_math};
  }
};

// Adds `--fast-math` to `cmd`, read into `on`; returns the option.
CLI::Option* add_fast_math_flag(CLI::App& cmd, bool& on);

// Adds `--cost-profile FILE` to `cmd`, read into `path`.
void add_cost_profile_flag(CLI::App& cmd, std::string& path);

// The files a command that optimizes reads, for check_outputs: the graph,
// the files it loads (`(load "w.npy")`), the `rule_files` and the cost
// profile (when given).
std::vector<InputFile> optimizer_inputs(const std::string& graph,
                                        const std::vector<std::string>& rule_files,
                                        const std::string& cost_profile);

// The saturation flags' values, or (run_saturation) the quiet, memory-watched
// saturation of a command that only runs a graph.
struct SaturationFlags {
  std::optional<std::size_t> node_limit, iter_limit;
  std::optional<double> time_limit;
  bool quiet = false;
  std::string memory_limit;  // empty: the memory available at the start
  // False for a command without --node-limit (run, profile): the advice
  // out of memory gives names what it has.
  bool node_limit_flag = true;

  // Adds the five options to `cmd`.
  void add_to(CLI::App& cmd);
  // Sets the overrides and (unless quiet) the progress display in `options`.
  void apply(rules::OptimizeOptions& options);
  // Ends the progress display and prints the limit warnings (unless quiet).
  void finish(const rules::OptimizeReport& report) const;
  // Ends the progress display and reports that the saturation of
  // `graph_file` ran out of memory (the std::bad_alloc caught around the
  // optimization, or the --memory-limit reached): exit status 1.
  int out_of_memory(const std::string& graph_file) const;

 private:
  struct Display;
  std::shared_ptr<Display> display_;
};

// The saturation of `run` and `profile`: quiet, with the schedule's limits,
// stopped past `memory_limit` (their --memory-limit text; empty: the memory
// available at the start) as optimize's is.
SaturationFlags run_saturation(const std::string& memory_limit);

}  // namespace eqsat::tools
