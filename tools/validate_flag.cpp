#include "validate_flag.hpp"

#include "memory_limit.hpp"

#include "backend/runtime_error.hpp"

#include <iostream>

namespace eqsat::tools {

void ValidateFlag::add_to(CLI::App& cmd) {
  option = cmd.add_option("--validate", value,
                          "run the written and the optimized graph on N random input sets "
                          "(default 3, edge values included) and refuse a difference")
               ->expected(0, 1)
               ->type_name("[N]")
               ->check(CLI::Range(1, 10000));
}

std::optional<std::size_t> ValidateFlag::sets() const {
  if (option == nullptr || option->count() == 0) return std::nullopt;
  if (value.empty() || value.front().empty()) return kDefaultSets;
  return std::stoul(value.front());  // CLI::Range checked it
}

bool ValidateFlag::check(const std::string& source, const ops::Graph& written,
                         const ops::Graph& optimized, const rules::RuleProgram& rules,
                         const rules::OptimizeOptions& options,
                         std::vector<std::optional<ops::Array>> fixed, bool quiet) const {
  rules::ValidateOptions v;
  v.input_sets = sets().value_or(kDefaultSets);
  v.fixed = std::move(fixed);
  v.before_drawing = [&](const std::vector<ops::TensorType>& types) {
    MemoryLimitFlag{}.check(source, written, types);
  };
  rules::OptimizeOptions quiet_options = options;
  quiet_options.progress = nullptr;
  quiet_options.saturated = nullptr;
  rules::ValidationResult r;
  try {
    r = rules::validate_optimization(written, optimized, rules, quiet_options, v);
  } catch (const backend::RuntimeError& e) {  // the input sets do not fit in memory
    std::cerr << e.what() << " (--validate)\n";
    return false;
  }
  if (r.mismatch) {
    std::cerr << rules::to_string(*r.mismatch, source);
    return false;
  }
  if (!quiet) std::cerr << rules::summary(r) << "\n";
  return true;
}

}  // namespace eqsat::tools
