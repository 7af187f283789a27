// `eqsat dot GRAPH [--egraph] [--rules F]... [-o F.dot]`: Graphviz of the
// graph's terms, or (--egraph) of the e-graph after the optimizer's
// saturation: e-classes as clusters, the extractor's choices filled,
// costs on e-nodes, bodies as nested clusters (rules/pipeline/dot_picture.hpp).
#include "command.hpp"
#include "read_graph.hpp"
#include "optimize_flags.hpp"
#include "output_paths.hpp"

#include "egraph/extract/extraction.hpp"
#include "ops/graph_parser.hpp"
#include "ops/output_file.hpp"
#include "rules/pipeline/dot_picture.hpp"
#include "rules/pipeline/optimize.hpp"

#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace eqsat::tools {
namespace {

struct DotArgs {
  std::string graph;
  bool egraph = false;
  RuleFileFlags rules;
  std::string out;
  SaturationFlags saturation;
};

int run_dot(DotArgs& args) {
  if (!args.out.empty())
    check_outputs({{"-o", args.out}}, optimizer_inputs(args.graph, args.rules.files, ""));
  std::string text;
  try {
    const ops::Graph graph = read_graph(args.graph);
    if (!args.egraph) {
      text = rules::graph_dot(graph);
    } else {
      rules::LoadedRules loaded = rules::load_rules(args.rules.options());
      for (const auto& w : loaded.warnings) std::cerr << w << "\n";
      rules::OptimizeOptions options;
      args.saturation.apply(options);
      options.saturated = [&](const rules::TensorEGraph& g,
                              std::span<const egraph::EClassId> roots) {
        text = rules::egraph_dot(g, roots, backend::CostModel(options.weights));
      };
      rules::OptimizeReport report;
      rules::optimize(graph, loaded.program, &report, options);
      args.saturation.finish(report);
    }
  } catch (const ops::DiagnosticError& e) {
    std::cerr << e.what() << "\n";
    return UserError;
  } catch (const egraph::ExtractionError&) {
    std::cerr << args.graph << ": error: an output has no acyclic term after rewriting\n";
    return UserError;
  } catch (const std::bad_alloc&) {
    return args.saturation.out_of_memory(args.graph);
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
  args->rules.add_to(*cmd);
  cmd->add_option("-o", args->out, "write the DOT text to this file instead of stdout");
  args->saturation.add_to(*cmd);
  on_run_reporting_user_errors(*cmd, action, [args] { return run_dot(*args); });
}

const CommandRegistration kRegistration{"dot", add_dot_command};

}  // namespace
}  // namespace eqsat::tools
