// The input values of a graph for `run` and `profile`: NAME=FILE.npy specs
// read from disk or NAME=VALUE written on the command line (input_value.hpp),
// the others drawn at random (`--random SEED`).
#pragma once

#include "output_paths.hpp"

#include "ops/graph.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {

// One array per graph input, in input order: from the `specs`
// (NAME=FILE.npy or NAME=VALUE) or, for inputs not given, reproducible
// random values from `seed`: floats uniform in [0, 1), integers uniform in {0, 1, 2, 3},
// bools fair coins, unknown dimensions 8. On a user error (an unknown name,
// an input without a value and no seed) prints it and returns nullopt;
// unreadable files throw as ops::read_npy does. `before_allocating`, when
// given, sees every input's type (from file headers; random inputs with
// unknown dimensions 8) before any array is read or drawn: `run` checks its
// planned memory there.
using TypesCheck = std::function<void(const std::vector<ops::TensorType>&)>;
std::optional<std::vector<ops::Array>> gather_inputs(const ops::Graph& graph,
                                                     const std::vector<std::string>& specs,
                                                     std::optional<std::uint64_t> seed,
                                                     const TypesCheck& before_allocating = {});

// The input flags of `run` and `profile`: `--input NAME=FILE.npy|VALUE`
// (repeatable) and `--random SEED`.
struct InputFlags {
  std::vector<std::string> specs;
  std::optional<std::uint64_t> seed;

  void add_to(CLI::App& cmd);
  // Appends the .npy files named by --input to `inputs` (for check_outputs).
  void add_files_to(std::vector<InputFile>& inputs) const;
  // The values of the --input files, one entry per input of `graph`
  // (nullopt for the others); names the graph lacks are left to gather.
  std::vector<std::optional<ops::Array>> given(const ops::Graph& graph) const;
  // gather_inputs with these flags.
  std::optional<std::vector<ops::Array>> gather(const ops::Graph& graph,
                                                const TypesCheck& before_allocating = {}) const {
    return gather_inputs(graph, specs, seed, before_allocating);
  }
};

}  // namespace eqsat::tools
