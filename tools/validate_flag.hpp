// `--validate [N]` of `optimize` and `run`: after optimizing, run the
// written and the optimized graph on N random input sets (default 3) and
// refuse a difference with exit status 1, naming the output, the input set
// and the rules on the path (rules/pipeline/validate.hpp).
#pragma once

#include "rules/pipeline/validate.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace eqsat::tools {

struct ValidateFlag {
  static constexpr std::size_t kDefaultSets = 3;

  std::vector<std::string> value;  // empty, or N
  CLI::Option* option = nullptr;

  // Adds `--validate [N]` (N from 1 to 10000) to `cmd`.
  void add_to(CLI::App& cmd);
  // The number of input sets, or nullopt when --validate was not given.
  std::optional<std::size_t> sets() const;
  // Validates `optimized` against `written` (read from `source`), with the
  // inputs of `fixed` kept: prints the refusal on stderr and returns false,
  // or prints the summary (unless `quiet`) and returns true. A validation
  // whose input sets need more memory than is available is refused before
  // drawing them.
  bool check(const std::string& source, const ops::Graph& written, const ops::Graph& optimized,
             const rules::RuleProgram& rules, const rules::OptimizeOptions& options,
             std::vector<std::optional<ops::Array>> fixed, bool quiet) const;
};

}  // namespace eqsat::tools
