// `eqsat run GRAPH [--input NAME=FILE.npy|NAME=VALUE]... [--random SEED] [--out DIR]
// [--rules FILE]... [--no-default-rules] [--trust-rules] [--no-opt]`: parses a graph, compiles it
// for the CPU executor and runs it; prints each output's type and a summary (min, mean, max; for
// bools the number of true elements) and writes DIR/NAME.npy per output. `--random SEED` fills the
// inputs not given with reproducible values (run_inputs.hpp). The graph is first optimized with
// the shipped rules plus the `--rules` files (see cmd_optimize.cpp); `--no-opt` runs it as written.
// Before any work the output directory is created and probed and every
// output's file name checked; before running, the planned memory is
// compared with `--memory-limit` (default: the machine's available memory),
// which also stops the optimization's saturation as optimize's does.
// `--validate [N]` first runs the written and the optimized graph on N
// random input sets (the --input values kept) and refuses a difference
// (validate_flag.hpp).
#include "command.hpp"
#include "empty_graph.hpp"
#include "memory_limit.hpp"
#include "optimize_flags.hpp"
#include "output_paths.hpp"
#include "read_graph.hpp"
#include "run_inputs.hpp"
#include "validate_flag.hpp"

#include "backend/cost_profile.hpp"

#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/npy.hpp"
#include "rules/pipeline/optimize.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <random>

namespace eqsat::tools {

namespace {

struct RunOptions {
  std::string graph;
  InputFlags input;
  std::string out_dir;
  RuleFileFlags rules;
  bool no_opt = false;
  std::string cost_profile;
  MemoryLimitFlag memory_limit;
  ValidateFlag validate;
};

std::string summary(const ops::Array& a) {
  if (a.size() == 0) return "empty";
  if (a.rank() == 0) return fmt::format("value {:.6g}", a.element(0));
  if (a.dtype() == ops::DType::Bool) {
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < a.size(); ++i) n += a.element(i) != 0;
    return fmt::format("{} of {} true", n, a.size());
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  std::int64_t nan = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double v = a.element(i);
    if (std::isnan(v)) {
      ++nan;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (nan == a.size()) return fmt::format("all {} NaN", nan);
  std::string s = fmt::format("min {:.6g}  mean {:.6g}  max {:.6g}", lo,
                              sum / static_cast<double>(a.size() - nan), hi);
  if (nan > 0) s += fmt::format("  ({} NaN)", nan);
  return s;
}

// The graph to execute: as written with --no-opt, else optimized (and
// with --validate checked against the written one on random input sets and
// on the --input values). Nullopt, the error reported, when they differ or
// the saturation ran out of memory (--memory-limit, as in optimize). Terms the optimizer
// kept are the same hash-consed terms, so they keep their source positions
// for run-time errors.
std::optional<ops::Graph> graph_to_run(const RunOptions& o, ops::Graph written) {
  if (o.no_opt) return written;
  const rules::LoadedRules loaded = rules::load_rules(o.rules.options());
  for (const auto& w : loaded.warnings) std::cerr << w << "\n";
  rules::OptimizeOptions options;
  options.weights = backend::cost_weights_for(o.cost_profile);
  SaturationFlags saturation = run_saturation(o.memory_limit.text);
  saturation.apply(options);
  ops::Graph best;
  try {
    best = rules::optimize(written, loaded.program, nullptr, options);
  } catch (const std::bad_alloc&) {
    saturation.out_of_memory(o.graph);
    return std::nullopt;
  }
  best.locations.merge(written.locations);
  if (o.validate.sets() && !o.validate.check(o.graph, written, best, loaded.program, options,
                                             o.input.given(written), /*quiet=*/false))
    return std::nullopt;
  return best;
}

int run(const RunOptions& o) {
  ops::Graph written = read_graph(o.graph);
  warn_if_no_outputs(written, o.graph);
  if (!o.out_dir.empty()) {
    prepare_output_dir(o.out_dir, "--out");
    std::vector<OutputFile> outputs;
    for (const auto& output : written.outputs)
      outputs.push_back({"--out", output_file_in(o.out_dir, output.name, ".npy")});
    std::vector<InputFile> inputs = optimizer_inputs(o.graph, o.rules.files, o.cost_profile);
    o.input.add_files_to(inputs);
    check_outputs(outputs, inputs);
  }
  const std::optional<ops::Graph> to_run = graph_to_run(o, std::move(written));
  if (!to_run) return UserError;
  const ops::Graph& graph = *to_run;
  std::optional<std::vector<ops::Array>> inputs =
      o.input.gather(graph, [&](const std::vector<ops::TensorType>& types) {
        o.memory_limit.check(o.graph, graph, types);
      });
  if (!inputs) return UserError;
  backend::Program program = backend::compile(graph);
  if (const auto limit = o.memory_limit.bytes())
    program.set_memory_limit(static_cast<std::uint64_t>(*limit));
  const std::vector<ops::Array> outputs = program.run(std::move(*inputs));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = program.output_names()[i];
    std::cout << fmt::format("{}: {}  {}\n", name, ops::to_string(outputs[i].type()),
                             summary(outputs[i]));
    if (!o.out_dir.empty()) ops::write_npy(output_file_in(o.out_dir, name, ".npy"), outputs[i]);
  }
  return Success;
}

void add_run_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a graph on the CPU executor");
  cmd->add_option("GRAPH", o->graph, "the graph file (.eg) or ONNX model (.onnx)")->required();
  o->input.add_to(*cmd);
  cmd->add_option("--out", o->out_dir, "write DIR/NAME.npy for each output");
  o->rules.add_to(*cmd);
  cmd->add_flag("--no-opt", o->no_opt, "run the graph as written");
  add_cost_profile_flag(*cmd, o->cost_profile);
  o->memory_limit.add_to(*cmd);
  o->validate.add_to(*cmd);
  o->validate.option->excludes("--no-opt");
  on_run_reporting_run_errors(*cmd, action, [o] { return run(*o); });
}

const CommandRegistration kRunRegistration{"run", add_run_command};

}  // namespace

}  // namespace eqsat::tools
