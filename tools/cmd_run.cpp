// `eqsat run GRAPH [--input NAME=FILE.npy]... [--random SEED] [--out DIR]
// [--rules FILE]... [--no-opt]`: parses a graph, compiles it for the CPU
// executor and runs it; prints each output's type and a summary (min, mean,
// max; for bools the number of true elements) and writes DIR/NAME.npy per
// output. `--random SEED` fills the inputs not given with reproducible
// values: floats uniform in [0, 1), integers uniform in {0, 1, 2, 3}, bools
// fair coins, unknown dimensions 8. The graph is first optimized with the
// shipped rules (or the `--rules` files); `--no-opt` runs it as written.
// Before any work the output directory is created and probed and every
// output's file name checked; before running, the planned memory is
// compared with `--memory-limit` (default: the machine's available memory).
#include "command.hpp"
#include "memory_limit.hpp"
#include "output_paths.hpp"

#include "backend/memory_plan.hpp"
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/graph_parser.hpp"
#include "ops/npy.hpp"
#include "rules/optimize.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <random>

namespace eqsat::tools {

namespace {

struct RunOptions {
  std::string graph;
  std::vector<std::string> inputs;  // NAME=FILE.npy
  std::optional<std::uint64_t> seed;
  std::string out_dir;
  std::vector<std::string> rules;
  bool no_opt = false;
  std::string memory_limit;  // empty: the available memory
};

// The type a missing input gets from --random: unknown dimensions are 8.
ops::TensorType random_type(const ops::TensorType& type) {
  ops::TensorType t = type;
  for (auto& d : t.dims)
    if (d == ops::kUnknownDim) d = 8;
  return t;
}

// A reproducible array of `type` (unknown dims 8) drawn from `rng`.
ops::Array random_array(const ops::TensorType& type, std::mt19937_64& rng) {
  ops::Array a(type.dtype, random_type(type).dims);
  ops::visit_dtype(type.dtype, [&]<class T>(std::type_identity<T>) {
    T* p = a.data<T>();
    for (std::int64_t i = 0; i < a.size(); ++i) {
      const std::uint64_t r = rng();
      if constexpr (std::is_same_v<T, bool>)
        p[i] = (r >> 63) != 0;
      else if constexpr (std::is_integral_v<T>)
        p[i] = static_cast<T>(r >> 62);
      else
        p[i] = static_cast<T>(static_cast<double>(r >> 11) * 0x1.0p-53);
    }
  });
  return a;
}

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

// The graph to execute: as written with --no-opt, else optimized. Terms the
// optimizer kept are the same hash-consed terms, so they keep their source
// positions for run-time errors.
ops::Graph graph_to_run(const RunOptions& o, ops::Graph written) {
  if (o.no_opt) return written;
  const rules::RuleProgram program =
      o.rules.empty() ? rules::load_default_rules() : rules::load_rule_files(o.rules);
  ops::Graph best = rules::optimize(written, program);
  best.locations.merge(written.locations);
  return best;
}

// Refuses a run whose planned memory exceeds the limit, before it starts.
void check_memory(const RunOptions& o, const ops::Graph& graph,
                  const std::vector<ops::TensorType>& input_types) {
  const std::optional<std::int64_t> limit =
      o.memory_limit.empty() ? available_memory_bytes() : parse_byte_size(o.memory_limit);
  if (!limit) return;
  const std::int64_t planned = backend::planned_bytes(graph, input_types);
  if (planned <= *limit) return;
  throw backend::RuntimeError(
      fmt::format(
          "{}: error: the run is planned to need {} bytes ({}) of memory, more than the limit of "
          "{} bytes "
          "({}{})",
          o.graph, planned, human_bytes(planned), *limit, human_bytes(*limit),
          o.memory_limit.empty() ? ", the memory available now; set it with --memory-limit" : ""),
      /*located=*/true);
}

int run(const RunOptions& o) {
  ops::Graph written = ops::parse_graph_file(o.graph);
  if (!o.out_dir.empty()) {
    prepare_output_dir(o.out_dir, "--out");
    for (const auto& output : written.outputs) output_file_in(o.out_dir, output.name, ".npy");
  }
  const ops::Graph graph = graph_to_run(o, std::move(written));
  std::vector<std::optional<ops::Array>> values(graph.inputs.size());
  std::vector<std::optional<std::string>> files(graph.inputs.size());
  auto input_index = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < graph.inputs.size(); ++i)
      if (graph.inputs[i]->attrs().get<std::string>(ops::AttrKey::Name) == name) return i;
    return std::nullopt;
  };
  for (const std::string& spec : o.inputs) {
    const auto eq = spec.find('=');
    const std::string name = spec.substr(0, eq);
    const auto i = input_index(name);
    if (!i) {
      std::cerr << fmt::format("error: --input {}: the graph has no input named {}\n", spec, name);
      return kUserError;
    }
    files[*i] = spec.substr(eq + 1);
  }
  // Every input's type first (file headers only), to plan the memory
  // before allocating anything.
  std::vector<ops::TensorType> input_types;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    if (files[i]) {
      input_types.push_back(ops::read_npy_type(*files[i]));
      continue;
    }
    const auto& name = graph.inputs[i]->attrs().get<std::string>(ops::AttrKey::Name);
    if (!o.seed) {
      std::cerr << fmt::format(
          "error: input {} has no value; pass --input {}=FILE.npy or --random SEED\n", name, name);
      return kUserError;
    }
    input_types.push_back(random_type(graph.inputs[i]->tensor_type()));
  }
  check_memory(o, graph, input_types);
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    if (files[i]) values[i] = ops::read_npy(*files[i]);
  std::mt19937_64 rng(o.seed.value_or(0));
  std::vector<ops::Array> inputs;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i]) values[i] = random_array(graph.inputs[i]->tensor_type(), rng);
    inputs.push_back(*values[i]);
  }
  backend::Program program = backend::compile(graph);
  const std::vector<ops::Array> outputs = program.run(std::move(inputs));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = program.output_names()[i];
    std::cout << fmt::format("{}: {}  {}\n", name, ops::to_string(outputs[i].type()),
                             summary(outputs[i]));
    if (!o.out_dir.empty()) ops::write_npy(output_file_in(o.out_dir, name, ".npy"), outputs[i]);
  }
  return kSuccess;
}

void add_run_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a graph on the CPU executor");
  cmd->add_option("GRAPH", o->graph, "the graph file (.eg)")->required();
  cmd->add_option("--input", o->inputs, "an input value: NAME=FILE.npy (repeatable)")
      ->check([](const std::string& s) {
        return s.find('=') == std::string::npos ? std::string("expected NAME=FILE.npy")
                                                : std::string();
      });
  cmd->add_option("--random", o->seed,
                  "fill missing inputs with reproducible random values (unknown dims: 8)");
  cmd->add_option("--out", o->out_dir, "write DIR/NAME.npy for each output");
  cmd->add_option("--rules", o->rules, "rule files for the optimizer (repeatable)");
  cmd->add_flag("--no-opt", o->no_opt, "run the graph as written");
  cmd->add_option("--memory-limit", o->memory_limit,
                  "refuse a run planned to need more memory: bytes, or with K/M/G/T "
                  "(default: the memory available now)")
      ->check([](const std::string& s) {
        return parse_byte_size(s) ? std::string()
                                  : std::string("expected a size such as 4096, 512M or 2G");
      });
  cmd->callback([o, &action] {
    action = [o] {
      try {
        return run(*o);
      } catch (const ops::DiagnosticError& e) {
        std::cerr << e.what() << "\n";
      } catch (const backend::RuntimeError& e) {
        std::cerr << (e.located() ? "" : "error: ") << e.what() << "\n";
      } catch (const OutputPathError& e) {
        std::cerr << e.what() << "\n";
      } catch (const std::bad_alloc&) {
        // A size decided at run time (arange, :n-steps, unknown dims) that
        // the plan could not see.
        std::cerr << "error: out of memory: a value of the run could not be allocated\n";
      }
      return static_cast<int>(kUserError);
    };
  });
}

const CommandRegistration kRegistration{"run", add_run_command};

}  // namespace

}  // namespace eqsat::tools
