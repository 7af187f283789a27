#include "command.hpp"

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

void add_registered_commands(CLI::App& app, Action& action) {
  auto commands = registry();
  std::ranges::sort(commands, {}, &std::pair<std::string, AddCommand>::first);
  for (const auto& [name, add] : commands) add(app, action);
}

}  // namespace eqsat::tools
