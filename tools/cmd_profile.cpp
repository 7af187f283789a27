// `eqsat profile GRAPH [--input NAME=FILE.npy|NAME=VALUE]... [--random SEED]
// [--repeat N] [--json OUT] [--no-opt] [--fast-math] [--memory-limit SIZE]`: optimizes the
// graph (unless --no-opt; --fast-math adds the fast-math set), compiles it
// once, runs it once to warm up and then N times
// (default 10), and prints the min and median wall time and where the time
// goes: one line per top-level instruction (an op, a fused group of
// elementwise ops, a fused reduction, a whole loop), slowest first, with
// its share, its seconds per run and its calls per run. `--json OUT`
// writes the same as
// {"runs": N, "seconds": {"min": S, "median": S},
//  "ops": [{"op": NAME, "seconds": S, "calls": C}], "peak_bytes": B}
// where an op's seconds and calls are totals over the N timed runs and
// peak_bytes is the bytes of the buffers the executor allocated (reused
// from run to run; inputs excluded); OUT is checked before any work and
// written atomically. Inputs come as in `run`;
// --cost-profile as in `optimize`; the planned memory is checked against
// `--memory-limit` before the inputs are allocated, as in `run`, and it
// stops the optimization's saturation as in `optimize`.
#include "cli_checks.hpp"
#include "command.hpp"
#include "empty_graph.hpp"
#include "memory_limit.hpp"
#include "optimize_flags.hpp"
#include "output_paths.hpp"
#include "read_graph.hpp"
#include "run_inputs.hpp"

#include "backend/cost_profile.hpp"
#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/output_file.hpp"
#include "ops/post_order.hpp"
#include "rules/pipeline/optimize.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <new>
#include <optional>

namespace eqsat::tools {

namespace {

struct ProfileOptions {
  std::string graph;
  InputFlags input;
  int repeat = 10;
  std::string json;
  bool no_opt = false;
  bool fast_math = false;
  std::string cost_profile;
  MemoryLimitFlag memory_limit;
};

// Gives each top-level term of `best` the optimizer built (so the written
// graph has no location for it) the location of the first output that
// reads it, written as `(output ...)`: every profile row is then located,
// two loops feeding different outputs told apart.
void locate_rewritten_terms(const ops::Graph& written, ops::Graph& best) {
  for (std::size_t i = 0; i < best.outputs.size() && i < written.outputs.size(); ++i) {
    // `best.locations` holds the written graph's locations (merged into it).
    const ops::SourceLocation* where = best.location(written.outputs[i].term);
    if (!where) continue;
    const ops::SourceLocation at = *where;
    ops::for_each_post_order(best.outputs[i].term, ops::Bodies::Skip,
                             [&](ops::TermRef t) { best.locations.try_emplace(t, at); });
  }
}

// The graph to profile: as written with --no-opt, else optimized; nullopt,
// the error reported, when the saturation ran out of memory.
std::optional<ops::Graph> graph_to_profile(const ProfileOptions& o) {
  ops::Graph written = read_graph(o.graph);
  warn_if_no_outputs(written, o.graph);
  if (o.no_opt) return written;
  rules::OptimizeOptions options;
  options.weights = backend::cost_weights_for(o.cost_profile);
  rules::RuleFileOptions files;
  files.fast_math = o.fast_math;
  const rules::RuleProgram program = rules::load_rules(files).program;
  SaturationFlags saturation = run_saturation(o.memory_limit.text);
  saturation.apply(options);
  ops::Graph best;
  try {
    best = rules::optimize(written, program, nullptr, options);
  } catch (const std::bad_alloc&) {
    saturation.out_of_memory(o.graph);
    return std::nullopt;
  }
  best.locations.merge(written.locations);
  locate_rewritten_terms(written, best);
  return best;
}

int profile(const ProfileOptions& o) {
  if (!o.json.empty()) {
    std::vector<InputFile> inputs = optimizer_inputs(o.graph, {}, o.cost_profile);
    o.input.add_files_to(inputs);
    check_outputs({{"--json", o.json}}, inputs);
  }
  const std::optional<ops::Graph> to_profile = graph_to_profile(o);
  if (!to_profile) return UserError;
  const ops::Graph& graph = *to_profile;
  const std::optional<std::vector<ops::Array>> inputs =
      o.input.gather(graph, [&](const std::vector<ops::TensorType>& types) {
        o.memory_limit.check(o.graph, graph, types);
      });
  if (!inputs) return UserError;
  backend::Program program = backend::compile(graph);
  if (const auto limit = o.memory_limit.bytes())
    program.set_memory_limit(static_cast<std::uint64_t>(*limit));
  program.run(*inputs);  // warm-up: buffers allocated, pages touched
  program.set_profiling(true);
  std::vector<double> seconds;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    program.run(*inputs);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::ranges::sort(seconds);
  const double min = seconds.front();
  const std::size_t n = seconds.size();
  const double median = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;

  std::vector<backend::OpTiming> ops = program.op_timings();
  std::ranges::stable_sort(ops, [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  double total = 0;
  for (const auto& op : ops) total += op.seconds;
  std::cout << fmt::format("{} runs after a warm-up: min {:.6g} s, median {:.6g} s\n", o.repeat,
                           min, median);
  std::cout << fmt::format("buffers: {} bytes\n\n", program.bytes_allocated());
  std::cout << fmt::format("{:>6}  {:>12}  {:>8}  {}\n", "share", "s per run", "calls", "op");
  for (const auto& op : ops)
    std::cout << fmt::format("{:>5.1f}%  {:>12.6g}  {:>8.6g}  {}\n",
                             total > 0 ? 100 * op.seconds / total : 0.0, op.seconds / o.repeat,
                             static_cast<double>(op.calls) / o.repeat, op.op);

  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["runs"] = o.repeat;
    j["seconds"] = {{"min", min}, {"median", median}};
    j["ops"] = nlohmann::ordered_json::array();
    for (const auto& op : ops)
      j["ops"].push_back({{"op", op.op}, {"seconds", op.seconds}, {"calls", op.calls}});
    j["peak_bytes"] = program.bytes_allocated();
    ops::write_file_atomically(o.json, {j.dump(2) + "\n"});
  }
  return Success;
}

void add_profile_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand("profile", "Time a graph on the CPU executor, op by op");
  cmd->add_option("GRAPH", o->graph, "the graph file (.eg) or ONNX model (.onnx)")->required();
  o->input.add_to(*cmd);
  cmd->add_option("--repeat", o->repeat, "timed runs after the warm-up (default 10)")
      ->check(whole_number_in(1, 1000000));
  cmd->add_option("--json", o->json, "write the profile as JSON to this file");
  cmd->add_flag("--no-opt", o->no_opt, "profile the graph as written");
  add_fast_math_flag(*cmd, o->fast_math);
  add_cost_profile_flag(*cmd, o->cost_profile);
  o->memory_limit.add_to(*cmd);
  on_run_reporting_run_errors(*cmd, action, [o] { return profile(*o); });
}

const CommandRegistration kProfileRegistration{"profile", add_profile_command};

}  // namespace

}  // namespace eqsat::tools
