// `eqsat optimize GRAPH [--rules FILE]... [--no-default-rules] [--trust-rules]
// [--report FILE.json] [-o OUT.eg|OUT.onnx]`: loads a graph into the tensor e-graph,
// runs the schedule of the shipped rules plus the given rule files (only
// those with --no-default-rules; a user's rewrite failing check-rules' quick
// numeric check is a warning unless --trust-rules), extracts the cheapest equivalent graph
// with the backend's cost model and prints it as a valid `.eg` file (to
// OUT.eg with -o; as an ONNX model with -o OUT.onnx). The JSON report (docs/language.md) goes to
// FILE.json. Both paths are checked before any work; the report may not be the graph or OUT.eg;
// OUT.eg may be the graph itself, replaced only once the optimization succeeded (files are written
// atomically).
// `--egraph-json F.json` writes the saturated e-graph as egraph-serialize
// JSON (readable by `eqsat extract`), with the extractor's costs.
// `--explain` prints on stderr, after the work, why each output of the
// result equals the input's (rules/pipeline/explanation.hpp: one step a line, each
// naming its rule), so that stdout stays a valid `.eg` file.
// `--validate [N]` runs the written and the optimized graph on N random
// input sets and refuses a difference (exit 1) before anything is written
// (validate_flag.hpp).
// The rule, cost and saturation flags and their set-up: optimizer_setup.hpp.
#include "command.hpp"
#include "empty_graph.hpp"
#include "onnx_module.hpp"
#include "optimizer_setup.hpp"
#include "output_paths.hpp"
#include "read_graph.hpp"
#include "validate_flag.hpp"

#include "egraph/extract/extraction.hpp"
#include "egraph/extract/from_egraph.hpp"
#include "egraph/serialize.hpp"
#include "onnx/export.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "ops/output_file.hpp"
#include "rules/lang/rule_parser.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/tensor/extract_graph.hpp"
#include "support/kept_until_exit.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace eqsat::tools {
namespace {

struct OptimizeArgs {
  std::string graph;
  OptimizerSetup setup;
  std::string report;
  std::string out;
  std::string extractor = "greedy-dag";
  std::string egraph_json;
  bool explain = false;
  ValidateFlag validate;
};

// Refuses output paths that would lose data or cannot be written. -o is
// written last, once the optimization succeeded: it may be the graph.
void check_outputs(const OptimizeArgs& args) {
  std::vector<OutputFile> outputs;
  if (!args.out.empty()) outputs.push_back({"-o", args.out, /*replaces_inputs_last=*/true});
  if (!args.report.empty()) outputs.push_back({"--report", args.report});
  if (!args.egraph_json.empty()) outputs.push_back({"--egraph-json", args.egraph_json});
  tools::check_outputs(outputs, args.setup.inputs(args.graph));
}

int run_optimize(OptimizeArgs& args) {
  check_outputs(args);
  ops::Graph graph;
  // The process ends after this command: the rules are kept, not freed.
  const rules::RuleProgram& program = support::keep_until_exit([&] {
    graph = read_graph(args.graph);
    warn_if_no_outputs(graph, args.graph);
    return std::make_unique<rules::RuleProgram>(args.setup.load_rules());
  }());
  std::optional<rules::OptimizeOptions> given = args.setup.options();
  if (!given) return UserError;
  rules::OptimizeOptions& options = *given;
  options.extractor = *egraph::parse_extractor(args.extractor);
  options.explain = args.explain;
  options.keep_rules_until_exit = true;
  bool exported = true;
  if (!args.egraph_json.empty())
    options.saturated = [&](const rules::TensorEGraph& g, std::span<const egraph::EClassId> roots) {
      const backend::CostModel model(options.weights);
      const auto data =
          egraph::to_serialized(g.egraph(), roots, rules::extraction_cost(g, roots, model));
      try {
        ops::write_file_atomically(args.egraph_json,
                                   {egraph::to_serialized_json(data).dump(1) + "\n"});
      } catch (const ops::DiagnosticError& e) {
        std::cerr << e.what() << "\n";
        exported = false;
      }
    };
  rules::OptimizeReport report;
  ops::Graph best;
  std::string explanation_past_cap;
  const int status = args.setup.saturate(args.graph, report, [&] {
    try {
      best = rules::optimize(graph, program, &report, options);
    } catch (const std::length_error& e) {  // an explanation past its cap
      explanation_past_cap = e.what();
      return UserError;
    }
    return Success;
  });
  if (!explanation_past_cap.empty())
    std::cerr << args.graph << ": error: --explain: " << explanation_past_cap << "\n";
  if (status != Success || !exported) return UserError;
  if (args.validate.sets() && !args.validate.check(args.graph, graph, best, program, options, {},
                                                   args.setup.saturation.quiet))
    return UserError;
  // `-o OUT.onnx` writes an ONNX model (onnx/export.hpp), any other name a graph file.
  const bool to_onnx =
      args.out.size() >= 5 && args.out.compare(args.out.size() - 5, 5, ".onnx") == 0;
  std::string text;
  try {
    text = to_onnx ? onnx_module().export_model(best) : ops::print_graph(best);
  } catch (const onnx::ExportError& e) {
    std::cerr << args.out << ": error: " << e.what() << "\n";
    return UserError;
  }
  try {
    if (!args.report.empty())
      ops::write_file_atomically(args.report, {report.to_json().dump(2) + "\n"});
    if (!args.out.empty()) ops::write_file_atomically(args.out, {text});
  } catch (const ops::DiagnosticError& e) {
    std::cerr << e.what() << "\n";
    return UserError;
  }
  if (args.out.empty()) std::cout << text;
  for (const rules::TermExplanation& e : report.explanations)
    std::cerr << rules::to_string(e, graph);
  return Success;
}

void add_optimize_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<OptimizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "optimize", "Optimize a graph by equality saturation; print the cheapest equivalent graph");
  cmd->add_option("GRAPH", args->graph, "the graph file (.eg) or ONNX model (.onnx)")->required();
  args->setup.rules.add_to(*cmd);
  cmd->add_option("--report", args->report, "write the JSON report to this file");
  cmd->add_option("-o", args->out, "write the optimized graph to this file instead of stdout");
  cmd->add_option("--extractor", args->extractor, "bottom-up, greedy-dag (default) or ilp")
      ->check(CLI::IsMember({"bottom-up", "greedy-dag", "ilp"}));
  args->setup.add_cost_profile_to(*cmd);
  cmd->add_option("--egraph-json", args->egraph_json,
                  "write the saturated e-graph to this file (egraph-serialize JSON)");
  cmd->add_flag("--explain", args->explain,
                "print on stderr the rewrite steps from each input output to the optimized one");
  args->setup.saturation.add_to(*cmd);
  args->validate.add_to(*cmd);
  on_run_reporting_user_errors(*cmd, action, [args] { return run_optimize(*args); });
}

const CommandRegistration kOptimizeRegistration{"optimize", add_optimize_command};

}  // namespace
}  // namespace eqsat::tools
