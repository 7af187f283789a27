// `eqsat explore GRAPH [--rules FILE]... [--top K] [--out DIR]`: saturates
// like `optimize`, then lists the K cheapest distinct equivalent graphs it
// finds (rules/pipeline/explore.hpp), the input graph among the candidates: one
// line each on stdout (rank, estimated cost, the ops whose counts differ
// from rank 1), followed by the graph itself unless --out is given, in
// which case each goes to DIR/rank-N.eg (the directory is created; paths
// are checked before any work; files are written atomically; rank files
// past this run's, left by an earlier run, are removed).
#include "cli_checks.hpp"
#include "command.hpp"
#include "optimizer_setup.hpp"
#include "output_paths.hpp"
#include "read_graph.hpp"

#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "ops/output_file.hpp"
#include "ops/post_order.hpp"
#include "rules/pipeline/explore.hpp"
#include "rules/pipeline/shown_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {
namespace {

struct ExploreArgs {
  std::string graph;
  OptimizerSetup setup;
  std::size_t top = 5;
  std::string out_dir;
};

// How many of each op the graph applies (loop and def bodies included,
// each distinct term once).
std::map<std::string, long> op_counts(const ops::Graph& g) {
  std::map<std::string, long> counts;
  std::vector<ops::TermRef> roots;
  for (const auto& o : g.outputs) roots.push_back(o.term);
  for (const auto& d : g.defs) roots.push_back(d.term);
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](ops::TermRef t) {
    if (t->arity() > 0 && t->kind() != ops::OpKind::Fn && t->kind() != ops::OpKind::Get)
      ++counts[std::string(ops::op_name(t->kind()))];
  });
  return counts;
}

// "+2 dot -1 transpose": the op counts of `g` against `first`'s.
std::string differences(const std::map<std::string, long>& first,
                        const std::map<std::string, long>& g) {
  std::map<std::string, long> delta = g;
  for (const auto& [op, n] : first) delta[op] -= n;
  std::string out;
  for (const auto& [op, n] : delta)
    if (n != 0) out += fmt::format("{}{}{} {}", out.empty() ? "" : " ", n > 0 ? "+" : "", n, op);
  return out.empty() ? "the same ops, arranged differently" : out;
}

// DIR/rank-N.eg for the graph at index `i`.
std::string rank_file(const std::string& dir, std::size_t i) {
  return output_file_in(dir, fmt::format("rank-{}", i + 1), ".eg");
}

// Removes the DIR/rank-N.eg files past the `written` ones, left by an
// earlier run with a larger --top, so that DIR holds this run's list only.
// Only names of that exact form, and never one of the command's inputs.
void remove_stale_ranks(const std::string& dir, std::size_t written,
                        const std::vector<InputFile>& inputs) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with("rank-") || !name.ends_with(".eg")) continue;
    const std::string digits = name.substr(5, name.size() - 8);
    std::size_t n = 0;
    const auto [at, error] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || digits[0] == '0' || error != std::errc() ||
        at != digits.data() + digits.size() || n <= written)
      continue;
    const bool is_input = std::ranges::any_of(
        inputs, [&](const InputFile& in) { return same_file(it->path().string(), in.path); });
    if (!is_input && it->is_regular_file(ec)) std::filesystem::remove(it->path(), ec);
  }
}

int run_explore(ExploreArgs& args) {
  if (!args.out_dir.empty()) {
    prepare_output_dir(args.out_dir, "--out");
    std::vector<OutputFile> outputs;
    for (std::size_t i = 0; i < args.top; ++i)
      outputs.push_back({"--out", rank_file(args.out_dir, i)});
    check_outputs(outputs, args.setup.inputs(args.graph));
  }
  const ops::Graph graph = read_graph(args.graph);
  const rules::RuleProgram program = args.setup.load_rules();
  const std::optional<rules::OptimizeOptions> options = args.setup.options();
  if (!options) return UserError;
  rules::OptimizeReport report;
  std::vector<rules::Alternative> found;
  const int status = args.setup.saturate(args.graph, report, [&] {
    found = rules::explore(graph, program, args.top, &report, *options);
    return Success;
  });
  if (status != Success) return status;
  const auto first = op_counts(found.front().graph);
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::string text = ops::print_graph(found[i].graph);
    std::string what = i == 0 ? "" : differences(first, op_counts(found[i].graph));
    if (found[i].graph.outputs == graph.outputs)
      what += what.empty() ? "the input graph" : " (the input graph)";
    const std::string line = fmt::format("rank {}  cost {}{}{}", i + 1,
                                         rules::describe(rules::shown_cost(found[i].cost)),
                                         what.empty() ? "" : "  ", what);
    if (args.out_dir.empty()) {
      std::cout << "; " << line << "\n" << text << "\n";
    } else {
      const std::string path = rank_file(args.out_dir, i);
      ops::write_file_atomically(path, {text});
      std::cout << line << "  -> " << path << "\n";
    }
  }
  if (!args.out_dir.empty())
    remove_stale_ranks(args.out_dir, found.size(), args.setup.inputs(args.graph));
  return Success;
}

void add_explore_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<ExploreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explore", "List the cheapest distinct equivalent graphs the rules reach, with their costs");
  cmd->add_option("GRAPH", args->graph, "the graph file (.eg) or ONNX model (.onnx)")->required();
  args->setup.rules.add_to(*cmd);
  cmd->add_option("--top", args->top, "how many graphs to list (default 5)")
      ->check(whole_number_in(1, 1000));
  cmd->add_option("--out", args->out_dir, "write DIR/rank-N.eg for each graph");
  args->setup.add_cost_profile_to(*cmd);
  args->setup.saturation.add_to(*cmd);
  on_run_reporting_user_errors(*cmd, action, [args] { return run_explore(*args); });
}

const CommandRegistration kExploreRegistration{"explore", add_explore_command};

}  // namespace
}  // namespace eqsat::tools
