// The subcommands of the `eqsat` program. Each lives in its own
// `cmd_NAME.cpp`, which registers itself with a static `CommandRegistration`;
// main.cpp adds every registered subcommand to the CLI11 app, in name order.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::tools {

// Exit status of the program (docs/language.md): 0 success, 1 user error,
// 2 bad usage, 3 an internal error (a bug in eqsat; exit_status.hpp).
enum ExitCode : int { Success = 0, UserError = 1, BadUsage = 2, InternalBug = 3 };

// What a chosen subcommand runs after parsing; returns the exit status.
using Action = std::function<int()>;

// Adds one subcommand's options to `app`; sets `action` from the
// subcommand's callback so that it runs when selected.
using AddCommand = void (*)(CLI::App& app, Action& action);

// Registers a subcommand at static-initialization time:
//   const CommandRegistration kPrintRegistration{"print", add_print_command};
// (a name of its own: the program is built as one translation unit)
struct CommandRegistration {
  CommandRegistration(std::string name, AddCommand add);
};

// Makes `cmd`'s callback set `action` to `run`, with a diagnostic (bad
// input), a refused output path or an explanation past its cap reported on
// stderr as a user error (exit 1): what most subcommands catch.
void on_run_reporting_user_errors(CLI::App& cmd, Action& action, std::function<int()> run);

// on_run_reporting_user_errors for the commands that execute a graph
// (`run`, `profile`): also reports as user errors a run-time error (an
// index out of range...), out of memory for a size only known at run time
// that the plan could not see, and an unreadable cost profile.
void on_run_reporting_run_errors(CLI::App& cmd, Action& action, std::function<int()> run);

// Adds the registered subcommands to `app`, sorted by name: only the one
// called `only` when there is one (a process runs one command, and building
// every command's options is part of each start), else all of them.
void add_registered_commands(CLI::App& app, Action& action, std::string_view only = {});

// The registered subcommands' names, sorted.
std::vector<std::string> registered_command_names();

}  // namespace eqsat::tools
