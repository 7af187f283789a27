#include "optimize_flags.hpp"

#include "cli_checks.hpp"

#include <fmt/format.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

namespace eqsat::tools {

namespace {
// Bounds far past any run, small enough to read in a message.
constexpr std::int64_t kMaxNodeLimit = 1'000'000'000'000;
constexpr std::int64_t kMaxIterLimit = 1'000'000'000;
}  // namespace

// Prints progress lines once the optimization has run a second.
struct SaturationFlags::Display {
  bool terminal = isatty(STDERR_FILENO) != 0;
  bool shown = false;  // a line was written (in place on a terminal)

  void show(const rules::OptimizeProgress& p) {
    if (p.seconds < 1.0) return;
    std::string sets;
    for (const auto& s : p.rulesets) sets += (sets.empty() ? "" : " ") + s;
    const std::string line =
        fmt::format("{} step {} iteration {}: {} e-nodes, {} e-classes, {:.1f} s [{}]", p.kind,
                    p.step + 1, p.iteration, p.enodes, p.eclasses, p.seconds, sets);
    if (terminal)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      std::cerr << line << "\n";
    shown = true;
  }
  void end() {
    if (terminal && shown) std::cerr << "\n";
    shown = false;
  }
};

void RuleFileFlags::add_to(CLI::App& cmd) {
  cmd.add_option("--rules", files,
                 "a rule file (.rules) added to the shipped rule sets; repeatable")
      ->allow_extra_args(false);
  CLI::Option* only_given = cmd.add_flag("--no-default-rules", no_default_rules,
                                         "use only the --rules files, not the shipped rule sets");
  cmd.add_flag("--trust-rules", trust_rules,
               "skip the quick numeric check of the --rules files' rewrites");
  add_fast_math_flag(cmd, fast_math)->excludes(only_given);
}

CLI::Option* add_fast_math_flag(CLI::App& cmd, bool& on) {
  return cmd.add_flag("--fast-math", on,
                      "also saturate the shipped fast-math rule set (laws for finite inputs or "
                      "up to rounding: PyTensor's defaults)");
}

void add_cost_profile_flag(CLI::App& cmd, std::string& path) {
  cmd.add_option("--cost-profile", path,
                 "the cost model's weights (a profile from `eqsat calibrate`)");
}

std::vector<InputFile> optimizer_inputs(const std::string& graph,
                                        const std::vector<std::string>& rule_files,
                                        const std::string& cost_profile) {
  std::vector<InputFile> inputs{{"the input graph", graph}};
  for (const std::string& f : rule_files) inputs.push_back({"a --rules file", f});
  if (!cost_profile.empty()) inputs.push_back({"the --cost-profile file", cost_profile});
  return inputs;
}

void SaturationFlags::add_to(CLI::App& cmd) {
  cmd.add_option("--node-limit", node_limit,
                 "stop a schedule step at this many e-nodes (overrides the schedule's :nodes)")
      ->check(whole_number_in(1, kMaxNodeLimit));
  cmd.add_option("--iter-limit", iter_limit,
                 "stop a saturate step after this many iterations (overrides its :iter)")
      ->check(whole_number_in(1, kMaxIterLimit));
  cmd.add_option("--time-limit", time_limit,
                 "stop a schedule step after this many seconds (overrides its :time)")
      ->check(positive_seconds());
  cmd.add_flag("--quiet", quiet, "no progress lines and no limit warnings on stderr");
}

void SaturationFlags::apply(rules::OptimizeOptions& options) {
  options.node_limit = node_limit;
  options.iter_limit = iter_limit;
  options.time_limit = time_limit;
  if (quiet) return;
  auto d = std::make_shared<Display>();
  display_ = d;
  options.progress = [d](const rules::OptimizeProgress& p) { d->show(p); };
}

void SaturationFlags::finish(const rules::OptimizeReport& report) const {
  if (display_) display_->end();
  if (quiet) return;
  for (std::size_t i = 0; i < report.phases.size(); ++i) {
    const rules::PhaseReport& p = report.phases[i];
    if (p.step != "saturate") continue;
    std::string which, how;
    switch (p.stop_reason) {
      case egraph::StopReason::NodeLimit:
        which = fmt::format("node limit (at {} e-nodes)", p.enodes);
        how = "--node-limit N or the step's :nodes";
        break;
      case egraph::StopReason::IterationLimit:
        which = fmt::format("iteration limit (after {} iterations)", p.iterations);
        how = "--iter-limit N or the step's :iter";
        break;
      case egraph::StopReason::TimeLimit:
        which = fmt::format("time limit (after {:.1f} s)", p.seconds);
        how = "--time-limit S or the step's :time";
        break;
      default:
        continue;
    }
    std::cerr << fmt::format(
        "warning: saturate step {} stopped at its {} before saturating; raise it with {}\n", i + 1,
        which, how);
  }
}

}  // namespace eqsat::tools
