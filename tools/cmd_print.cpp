// `eqsat print GRAPH`: parses and type-checks a graph file and prints it
// back in normal form, with each value's inferred type as a comment.
#include "command.hpp"
#include "empty_graph.hpp"
#include "read_graph.hpp"

#include "onnx/import_error.hpp"
#include "ops/graph_printer.hpp"

#include <iostream>
#include <memory>

namespace eqsat::tools {

namespace {

void add_print_command(CLI::App& app, Action& action) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "print", "Parse and type-check a graph file; print it normalized, with inferred types");
  cmd->add_option("GRAPH", *path, "the graph file (.eg) or ONNX model (.onnx)")->required();
  cmd->callback([path, &action] {
    action = [path] {
      try {
        const ops::Graph graph = read_graph(*path);
        warn_if_no_outputs(graph, *path);
        std::cout << ops::print_graph(graph, {.types = true});
        return static_cast<int>(Success);
      } catch (const ops::DiagnosticError& e) {
        std::cerr << e.what() << "\n";
      } catch (const onnx::ImportError& e) {
        std::cerr << e.what() << "\n";
      }
      return static_cast<int>(UserError);
    };
  });
}

const CommandRegistration kPrintRegistration{"print", add_print_command};

}  // namespace

}  // namespace eqsat::tools
