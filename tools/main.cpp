// The `eqsat` program: a thin shell over the library. Parses the command
// line, runs the chosen subcommand, and maps errors to exit codes.
#include "command.hpp"
#include "command_suggestion.hpp"
#include "exit_status.hpp"
#include "standard_output.hpp"

#include <algorithm>
#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  using namespace eqsat::tools;
  ignore_broken_pipes();
  CLI::App app{"eqsat: optimize and run array programs by equality saturation"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "eqsat " EQSAT_VERSION);
  Action action;
  add_registered_commands(app, action);
  // A first argument that is neither an option nor a subcommand is a
  // mistyped subcommand: name it, and the closest one.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      names.push_back(sub->get_name());
    if (std::ranges::find(names, argv[1]) == names.end()) {
      std::cerr << "eqsat: unknown command '" << argv[1] << "'";
      if (const auto near = closest_command(argv[1], names))
        std::cerr << "; did you mean '" << *near << "'?";
      std::cerr << "\nRun with --help for the commands.\n";
      return BadUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return BadUsage;
  }
  int status = 0;
  try {
    status = action();
  } catch (...) {
    // Commands report user errors themselves; anything reaching here is
    // out of memory or a bug, reported rather than crashing.
    status = report_escaped_error(std::current_exception(), std::cerr);
  }
  return finish_standard_output(status, std::cerr);
}
