// The `eqsat` program: a thin shell over the library. Parses the command
// line, runs the chosen subcommand, and maps errors to exit codes.
#include "command.hpp"
#include "command_suggestion.hpp"
#include "exit_status.hpp"
#include "huge_page_heap.hpp"
#include "standard_output.hpp"

#include "backend/blas_start.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

// Under AddressSanitizer the process ends through exit(), so that
// LeakSanitizer checks it.
#if defined(__SANITIZE_ADDRESS__)
#define EQSAT_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EQSAT_LEAK_CHECKED 1
#endif
#endif
#ifndef EQSAT_LEAK_CHECKED
#define EQSAT_LEAK_CHECKED 0
#endif

int main(int argc, char** argv) {
  using namespace eqsat::tools;
  back_heap_by_huge_pages();
  ignore_broken_pipes();
  CLI::App app{"eqsat: optimize and run array programs by equality saturation"};
  app.require_subcommand(1);
  // The version, and the OpenBLAS kernels products run on (bench/blas_core.sh
  // gives NumPy the same).
  app.set_version_flag("--version", [] {
    const std::string kernels = eqsat::backend::blas_kernels();
    return "eqsat " EQSAT_VERSION + (kernels.empty() ? "" : "\nOpenBLAS kernels: " + kernels);
  });
  Action action;
  add_registered_commands(app, action, argc > 1 ? argv[1] : "");
  // A first argument that is neither an option nor a subcommand is a
  // mistyped subcommand: name it, and the closest one.
  if (argc > 1 && argv[1][0] != '-') {
    const std::vector<std::string> names = registered_command_names();
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
  status = finish_standard_output(status, std::cerr);
#if !EQSAT_LEAK_CHECKED
  // Every output is written and renamed, standard output flushed: the
  // process ends without destroying the program's tables (the hash-cons of
  // terms, the rule symbols), which the system reclaims at once.
  std::fflush(nullptr);
  std::_Exit(status);
#endif
  return status;
}
