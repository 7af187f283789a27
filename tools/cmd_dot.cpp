// `eqsat dot GRAPH [--egraph] [--rules F]... [-o F.dot] [--cost-profile F]`:
// Graphviz of the graph's terms, or (--egraph) of the e-graph after the optimizer's
// saturation: e-classes as clusters, the extractor's choices filled,
// costs on e-nodes, bodies as nested clusters (rules/pipeline/dot_picture.hpp).
#include "command.hpp"
#include "optimizer_setup.hpp"
#include "output_paths.hpp"
#include "read_graph.hpp"

#include "ops/graph_parser.hpp"
#include "ops/output_file.hpp"
#include "rules/pipeline/dot_picture.hpp"
#include "rules/pipeline/optimize.hpp"

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {
namespace {

struct DotArgs {
  std::string graph;
  bool egraph = false;
  OptimizerSetup setup;
  std::string out;
};

int run_dot(DotArgs& args) {
  if (!args.out.empty()) check_outputs({{"-o", args.out}}, args.setup.inputs(args.graph));
  std::string text;
  const ops::Graph graph = read_graph(args.graph);
  if (!args.egraph) {
    text = rules::graph_dot(graph);
  } else {
    const rules::RuleProgram program = args.setup.load_rules();
    std::optional<rules::OptimizeOptions> given = args.setup.options();
    if (!given) return UserError;
    rules::OptimizeOptions options = *std::move(given);
    options.saturated = [&](const rules::TensorEGraph& g, std::span<const egraph::EClassId> roots) {
      text = rules::egraph_dot(g, roots, backend::CostModel(options.weights));
    };
    rules::OptimizeReport report;
    const int status = args.setup.saturate(args.graph, report, [&] {
      rules::optimize(graph, program, &report, options);
      return Success;
    });
    if (status != Success) return status;
  }
  if (args.out.empty()) {
    std::cout << text;
    return Success;
  }
  ops::write_file_atomically(args.out, {text});
  return Success;
}

void add_dot_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<DotArgs>();
  CLI::App* cmd = app.add_subcommand(
      "dot", "Write Graphviz of a graph, or of its e-graph after saturation (--egraph)");
  cmd->add_option("GRAPH", args->graph, "the graph file (.eg) or ONNX model (.onnx)")->required();
  cmd->add_flag("--egraph", args->egraph,
                "draw the saturated e-graph: classes as clusters, chosen e-nodes filled");
  args->setup.rules.add_to(*cmd);
  cmd->add_option("-o", args->out, "write the DOT text to this file instead of stdout");
  args->setup.add_cost_profile_to(*cmd);
  args->setup.saturation.add_to(*cmd);
  on_run_reporting_user_errors(*cmd, action, [args] { return run_dot(*args); });
}

const CommandRegistration kDotRegistration{"dot", add_dot_command};

}  // namespace
}  // namespace eqsat::tools
