#include "command.hpp"

#include "output_paths.hpp"

#include "ops/diagnostic.hpp"

#include <iostream>
#include <stdexcept>

#include <algorithm>
#include <utility>
#include <vector>

namespace eqsat::tools {

namespace {
std::vector<std::pair<std::string, AddCommand>>& registry() {
  static std::vector<std::pair<std::string, AddCommand>> commands;
  return commands;
}
}  // namespace

CommandRegistration::CommandRegistration(std::string name, AddCommand add) {
  registry().emplace_back(std::move(name), add);
}

void on_run_reporting_user_errors(CLI::App& cmd, Action& action, std::function<int()> run) {
  cmd.callback([&action, run = std::move(run)] {
    action = [run] {
      try {
        return run();
      } catch (const ops::DiagnosticError& e) {
        std::cerr << e.what() << "\n";
      } catch (const OutputPathError& e) {
        std::cerr << e.what() << "\n";
      } catch (const std::length_error& e) {
        std::cerr << "error: " << e.what() << "\n";
      }
      return static_cast<int>(UserError);
    };
  });
}

void add_registered_commands(CLI::App& app, Action& action) {
  auto commands = registry();
  std::ranges::sort(commands, {}, &std::pair<std::string, AddCommand>::first);
  for (const auto& [name, add] : commands) add(app, action);
}

}  // namespace eqsat::tools
