#include "command.hpp"

#include "onnx_module.hpp"
#include "output_paths.hpp"

#include "backend/runtime_error.hpp"
#include "onnx/import_error.hpp"
#include "ops/diagnostic.hpp"

#include <iostream>
#include <new>
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
      } catch (const onnx::ImportError& e) {
        std::cerr << e.what() << "\n";
      } catch (const std::length_error& e) {
        std::cerr << "error: " << e.what() << "\n";
      }
      return static_cast<int>(UserError);
    };
  });
}

void on_run_reporting_run_errors(CLI::App& cmd, Action& action, std::function<int()> run) {
  on_run_reporting_user_errors(cmd, action, [run = std::move(run)] {
    try {
      return run();
    } catch (const backend::RuntimeError& e) {
      std::cerr << (e.located() ? "" : "error: ") << e.what() << "\n";
    } catch (const std::bad_alloc&) {
      std::cerr << "error: out of memory: a value of the run could not be allocated\n";
    } catch (const ops::DiagnosticError&) {
      throw;  // reported by on_run_reporting_user_errors
    } catch (const OutputPathError&) {
      throw;  // likewise
    } catch (const onnx::ImportError&) {
      throw;  // likewise
    } catch (const OnnxModuleError&) {
      throw;                                 // an internal error (main.cpp)
    } catch (const std::runtime_error& e) {  // an unreadable cost profile
      std::cerr << "error: " << e.what() << "\n";
    }
    return static_cast<int>(UserError);
  });
}

void add_registered_commands(CLI::App& app, Action& action, std::string_view only) {
  auto commands = registry();
  std::ranges::sort(commands, {}, &std::pair<std::string, AddCommand>::first);
  const bool known = std::ranges::any_of(commands, [&](const auto& c) { return c.first == only; });
  for (const auto& [name, add] : commands)
    if (!known || name == only) add(app, action);
}

std::vector<std::string> registered_command_names() {
  std::vector<std::string> names;
  for (const auto& [name, add] : registry()) names.push_back(name);
  std::ranges::sort(names);
  return names;
}

}  // namespace eqsat::tools
