// `eqsat explain GRAPH LHS RHS [--rules FILE]... [limits] [--quiet]`: LHS
// and RHS are expressions of the graph language over GRAPH's names (inputs,
// lets, defs), parsed as if written at the end of the file. Both go into
// one e-graph with the graph, the rules saturate it as `optimize` does
// (rules/pipeline/prove_equal.hpp), and the steps proving LHS = RHS are printed on
// stdout (rules/pipeline/explanation.hpp). Exit 1 with "not proven equal within the
// limits: STOP REASON" when saturation ends with them in two e-classes.
#include "command.hpp"
#include "optimizer_setup.hpp"
#include "read_graph.hpp"

#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "rules/pipeline/prove_equal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace eqsat::tools {
namespace {

struct ExplainArgs {
  std::string graph, lhs, rhs;
  OptimizerSetup setup;
};

constexpr std::string_view kLhsOutput = "(output __explain_lhs ";
constexpr std::string_view kRhsOutput = "(output __explain_rhs ";

// The graph with LHS and RHS as two more outputs, the last two. Errors in
// them are reported at `LHS:1:COL` / `RHS:1:COL`.
ops::Graph parse_with_sides(const ExplainArgs& args) {
  const ops::Graph graph = read_graph(args.graph);  // the graph's own errors, at its own positions
  std::string text;
  if (onnx::is_onnx_model(args.graph)) {
    text = ops::print_graph(graph);  // names of the model (onnx/value_names.hpp)
  } else {
    std::ifstream in(args.graph, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  const int lhs_line = static_cast<int>(std::ranges::count(text, '\n')) + 1;
  text += fmt::format("{}{})\n{}{})\n", kLhsOutput, args.lhs, kRhsOutput, args.rhs);
  const std::string dir = std::filesystem::path(args.graph).parent_path().string();
  try {
    return ops::parse_graph(text, args.graph, dir.empty() ? "." : dir);
  } catch (const ops::DiagnosticError& e) {
    std::vector<ops::Diagnostic> moved = e.diagnostics();
    for (ops::Diagnostic& d : moved) {
      const int side = d.where.line - lhs_line;
      if (d.where.file != args.graph || side < 0 || side > 1) continue;
      const int prefix = static_cast<int>((side == 0 ? kLhsOutput : kRhsOutput).size());
      d.where = {side == 0 ? "LHS" : "RHS", 1, std::max(1, d.where.column - prefix)};
    }
    throw ops::DiagnosticError(std::move(moved));
  }
}

int run_explain(ExplainArgs& args) {
  ops::Graph graph = parse_with_sides(args);
  const ops::TermRef rhs = graph.outputs.back().term;
  graph.outputs.pop_back();
  const ops::TermRef lhs = graph.outputs.back().term;
  graph.outputs.pop_back();
  const rules::RuleProgram program = args.setup.load_rules();
  const rules::OptimizeOptions options = *args.setup.options();  // no --cost-profile to fail
  const rules::ProofResult proof = rules::prove_equal(graph, lhs, rhs, program, options);
  args.setup.saturation.finish(proof.report);
  if (!proof.explanation) {
    std::cerr << fmt::format("{}: not proven equal within the limits: {}\n", args.graph,
                             proof.report.stop_reason);
    return UserError;
  }
  rules::TermExplanation e = *proof.explanation;
  e.name = fmt::format("{} = {}", args.lhs, args.rhs);
  std::cout << rules::to_string(e, graph);
  return Success;
}

void add_explain_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "Print the rewrite steps proving two expressions over a graph's names equal");
  cmd->add_option("GRAPH", args->graph, "the graph file (.eg) or ONNX model (.onnx)")->required();
  cmd->add_option("LHS", args->lhs, "an expression over the graph's names")->required();
  cmd->add_option("RHS", args->rhs, "an expression over the graph's names")->required();
  args->setup.rules.add_to(*cmd);
  args->setup.saturation.add_to(*cmd);
  on_run_reporting_user_errors(*cmd, action, [args] { return run_explain(*args); });
}

const CommandRegistration kExplainRegistration{"explain", add_explain_command};

}  // namespace
}  // namespace eqsat::tools
