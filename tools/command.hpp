// The subcommands of the `eqsat` program. Each one adds its options to the
// CLI11 app and, when it is the one chosen, stores the action that runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace eqsat::tools {

// Exit status of the program (LANGUAGE.md): 0 success, 1 user error, 2 bad usage.
enum ExitCode : int { kSuccess = 0, kUserError = 1, kBadUsage = 2 };

// What a chosen subcommand runs after parsing; returns the exit status.
using Action = std::function<int()>;

// Each adds one subcommand to `app`; `action` is set when it is selected.
void add_extract_command(CLI::App& app, Action& action);

}  // namespace eqsat::tools
