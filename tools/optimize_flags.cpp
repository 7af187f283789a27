#include "optimize_flags.hpp"

#include "cli_checks.hpp"
#include "command.hpp"
#include "memory_limit.hpp"

#include "ops/loaded_files.hpp"

#include <fmt/format.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>
#include <optional>
#include <string>

namespace eqsat::tools {

namespace {
// Bounds far past any run, small enough to read in a message.
constexpr std::int64_t kMaxNodeLimit = 1'000'000'000'000;
constexpr std::int64_t kMaxIterLimit = 1'000'000'000;

// Thrown from the progress callback when the process holds more than
// --memory-limit: a std::bad_alloc, so that the one catch reports both.
struct MemoryLimitReached : std::bad_alloc {
  const char* what() const noexcept override { return "the --memory-limit was reached"; }
};
}  // namespace

// Prints progress lines once the optimization has run a second; checks
// the memory after each iteration and keeps the e-graph's last size.
struct SaturationFlags::Display {
  bool terminal = isatty(STDERR_FILENO) != 0;
  bool shown = false;  // a line was written (in place on a terminal)
  bool quiet = false;
  std::optional<std::int64_t> limit;
  bool limit_given = false;  // --memory-limit, not the available memory
  std::optional<rules::OptimizeProgress> last;
  std::int64_t held = 0;  // the resident memory that passed the limit

  void observe(const rules::OptimizeProgress& p) {
    last = p;
    last->rulesets = {};  // not kept past the call
    if (!quiet) show(p);
    const std::optional<std::int64_t> now = limit ? resident_memory_bytes() : std::nullopt;
    if (now && *now > *limit) {
      held = *now;
      throw MemoryLimitReached();
    }
  }

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
  std::vector<InputFile> inputs{{"the input graph", graph, /*rewritable=*/true}};
  for (std::string& f : ops::files_loaded_by(graph))
    inputs.push_back({"a file the graph loads", std::move(f)});
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
  cmd.add_option("--memory-limit", memory_limit,
                 "stop with an error when saturation holds more memory: bytes, or with K/M/G/T "
                 "(default: the memory available at the start)")
      ->check([](const std::string& text) {
        return parse_byte_size(text) ? std::string()
                                     : std::string("expected a size such as 4096, 512M or 2G");
      });
}

void SaturationFlags::apply(rules::OptimizeOptions& options) {
  options.node_limit = node_limit;
  options.iter_limit = iter_limit;
  options.time_limit = time_limit;
  auto d = std::make_shared<Display>();
  d->quiet = quiet;
  d->limit_given = !memory_limit.empty();
  if (d->limit_given) {
    d->limit = parse_byte_size(memory_limit);
  } else if (const auto available = available_memory_bytes()) {
    d->limit = *available + resident_memory_bytes().value_or(0);
  }
  display_ = d;
  options.progress = [d](const rules::OptimizeProgress& p) { d->observe(p); };
}

int SaturationFlags::out_of_memory(const std::string& graph_file) const {
  if (display_) display_->end();
  const Display* d = display_.get();
  const std::string where =
      d && d->last
          ? fmt::format("at {} e-nodes and {} e-classes (step {} iteration {})", d->last->enodes,
                        d->last->eclasses, d->last->step + 1, d->last->iteration)
          : std::string("while loading the graph into the e-graph");
  const std::string lower =
      !(d && d->last)   ? std::string("give it smaller constants")
      : node_limit_flag ? fmt::format("set --node-limit below {}", d->last->enodes)
                        : fmt::format(
                              "run it with --no-opt (or `eqsat optimize --node-limit` below {} "
                              "first)",
                              d->last->enodes);
  if (d && d->held > 0 && d->limit)
    std::cerr << fmt::format(
        "{}: error: out of memory: saturation holds {} ({} bytes), more than the {} of {} "
        "({} bytes), {}; {}, or raise --memory-limit\n",
        graph_file, human_bytes(d->held), d->held,
        d->limit_given ? "--memory-limit" : "memory available at the start", human_bytes(*d->limit),
        *d->limit, where, lower);
  else
    std::cerr << fmt::format(
        "{}: error: out of memory: the system refused an allocation during saturation {}; {}, "
        "or set --memory-limit below what the system gives\n",
        graph_file, where, lower);
  return UserError;
}

SaturationFlags run_saturation(const std::string& memory_limit) {
  SaturationFlags flags;
  flags.quiet = true;
  flags.memory_limit = memory_limit;
  flags.node_limit_flag = false;
  return flags;
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
      case egraph::StopReason::Saturated:
      case egraph::StopReason::Other:
        continue;  // no limit to raise
    }
    std::cerr << fmt::format(
        "warning: saturate step {} stopped at its {} before saturating; raise it with {}\n", i + 1,
        which, how);
  }
}

}  // namespace eqsat::tools
