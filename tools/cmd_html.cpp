// `eqsat html GRAPH -o F.html [--rules FILE]... [--top K]`: saturates like
// `optimize` and writes one self-contained page (no network: its script and
// style are inline) to browse the result: the extractor's choice drawn,
// every e-class reached with its e-nodes, types, costs and chosen e-node,
// the report's per-rule counts, and the K cheapest alternatives of
// `explore` (rules/pipeline/explore.hpp). The data is one JSON object in the page
// (html_data.hpp); the page is tools/html_page.html. The -o path is
// checked before any work (it may not be the graph) and written
// atomically. The rule, cost and saturation flags: optimizer_setup.hpp.
#include "cli_checks.hpp"
#include "command.hpp"
#include "html_data.hpp"
#include "html_page.hpp"
#include "optimizer_setup.hpp"
#include "output_paths.hpp"
#include "read_graph.hpp"

#include "ops/graph_parser.hpp"
#include "ops/output_file.hpp"
#include "rules/pipeline/egraph_picture.hpp"
#include "rules/pipeline/explore.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {
namespace {

struct HtmlArgs {
  std::string graph;
  std::string out;
  OptimizerSetup setup;
  std::size_t top = 5;
};

int run_html(HtmlArgs& args) {
  check_outputs({{"-o", args.out}}, args.setup.inputs(args.graph));
  const ops::Graph graph = read_graph(args.graph);
  const rules::RuleProgram program = args.setup.load_rules();
  std::optional<rules::OptimizeOptions> given = args.setup.options();
  if (!given) return UserError;
  rules::OptimizeOptions& options = *given;
  nlohmann::json data = {{"graph", args.graph}};
  options.saturated = [&](const rules::TensorEGraph& g, std::span<const egraph::EClassId> roots) {
    const auto picture = rules::egraph_picture(g, roots, backend::CostModel(options.weights));
    data["egraph"] = egraph_json(g, picture, graph);
  };
  rules::OptimizeReport report;
  std::vector<rules::Alternative> found;
  const int status = args.setup.saturate(args.graph, report, [&] {
    found = rules::explore(graph, program, args.top, &report, options);
    return Success;
  });
  if (status != Success) return status;
  if (const auto shown = data["egraph"].find("shown"); shown != data["egraph"].end())
    std::cerr << fmt::format(
        "note: the page shows {} of the {} e-nodes ({} of {} e-classes): the extracted graph's "
        "classes first, then the others in id order\n",
        (*shown)["nodes"].get<std::size_t>(), (*shown)["of_nodes"].get<std::size_t>(),
        (*shown)["classes"].get<std::size_t>(), (*shown)["of_classes"].get<std::size_t>());
  data["report"] = report_json(report);
  data["alternatives"] = alternatives_json(found, graph);
  ops::write_file_atomically(args.out, {html_page(data)});
  return Success;
}

void add_html_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<HtmlArgs>();
  CLI::App* cmd =
      app.add_subcommand("html", "Write one self-contained page to browse the saturated e-graph");
  cmd->add_option("GRAPH", args->graph, "the graph file (.eg) or ONNX model (.onnx)")->required();
  cmd->add_option("-o", args->out, "the page to write (.html)")->required();
  args->setup.rules.add_to(*cmd);
  cmd->add_option("--top", args->top, "how many alternative graphs to show (default 5)")
      ->check(whole_number_in(1, 1000));
  args->setup.add_cost_profile_to(*cmd);
  args->setup.saturation.add_to(*cmd);
  on_run_reporting_user_errors(*cmd, action, [args] { return run_html(*args); });
}

const CommandRegistration kHtmlRegistration{"html", add_html_command};

}  // namespace
}  // namespace eqsat::tools
