// The memory limit of `eqsat run` and `eqsat profile` (`--memory-limit`): a
// run whose planned memory (backend/memory_plan.hpp) exceeds it fails
// before it starts, and one whose values, as their sizes become known at
// run time, would need more fails at the op that would pass it. The same
// limit stops their optimization's saturation as optimize's --memory-limit
// does (optimize_flags.hpp: run_saturation).
#pragma once

#include "ops/graph.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {

// The memory the machine can give now: MemAvailable of /proc/meminfo, else
// the free physical pages; nullopt when neither is known.
std::optional<std::int64_t> available_memory_bytes();

// The memory the process holds now (its resident set, from
// /proc/self/statm); nullopt when unknown.
std::optional<std::int64_t> resident_memory_bytes();

// Parses a size: bytes, or a number with a binary suffix K, M, G or T
// (`512M`, `1.5G`). Nullopt when malformed, negative or over 2^63.
std::optional<std::int64_t> parse_byte_size(const std::string& text);

// `12.3 GiB` style text for messages (with the exact byte count elsewhere).
std::string human_bytes(std::int64_t bytes);

// The `--memory-limit SIZE` option (default: the memory available now).
struct MemoryLimitFlag {
  std::string text;  // empty: the available memory

  void add_to(CLI::App& cmd);
  // Throws backend::RuntimeError `GRAPH_FILE: error: the run is planned to
  // need ...` when running `graph` on inputs of `input_types` is planned to
  // need more memory than the limit.
  void check(const std::string& graph_file, const ops::Graph& graph,
             const std::vector<ops::TensorType>& input_types) const;
  // The limit in bytes: the --memory-limit or the memory available now;
  // nullopt when neither is known. The executor checks the sizes only
  // known at run time against it (backend::Program::set_memory_limit).
  std::optional<std::int64_t> bytes() const;
};

}  // namespace eqsat::tools
