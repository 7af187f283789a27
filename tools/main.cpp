// The `eqsat` program: a thin shell over the library. Parses the command
// line, runs the chosen subcommand, and maps errors to exit codes.
#include "command.hpp"
#include "exit_status.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  using namespace eqsat::tools;
  CLI::App app{"eqsat: optimize and run array programs by equality saturation"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "eqsat " EQSAT_VERSION);
  Action action;
  add_registered_commands(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return BadUsage;
  }
  try {
    return action();
  } catch (...) {
    // Commands report user errors themselves; anything reaching here is
    // out of memory or a bug, reported rather than crashing.
    return report_escaped_error(std::current_exception(), std::cerr);
  }
}
