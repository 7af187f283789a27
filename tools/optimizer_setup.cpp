#include "optimizer_setup.hpp"

#include "command.hpp"

#include "backend/cost_profile.hpp"
#include "egraph/extract/extraction.hpp"

#include <iostream>
#include <new>
#include <stdexcept>

namespace eqsat::tools {

void OptimizerSetup::add_cost_profile_to(CLI::App& cmd) {
  add_cost_profile_flag(cmd, cost_profile);
  reads_cost_profile_ = true;
}

std::vector<InputFile> OptimizerSetup::inputs(const std::string& graph) const {
  return optimizer_inputs(graph, rules.files, cost_profile);
}

rules::RuleProgram OptimizerSetup::load_rules() const {
  rules::LoadedRules loaded = rules::load_rules(rules.options());
  for (const auto& w : loaded.warnings) std::cerr << w << "\n";
  return std::move(loaded.program);
}

std::optional<rules::OptimizeOptions> OptimizerSetup::options() {
  rules::OptimizeOptions options;
  if (reads_cost_profile_) {
    try {
      options.weights = backend::cost_weights_for(cost_profile);
    } catch (const std::runtime_error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return std::nullopt;
    }
  }
  saturation.apply(options);
  return options;
}

int OptimizerSetup::saturate(const std::string& graph_file, const rules::OptimizeReport& report,
                             const std::function<int()>& work) {
  int status = Success;
  try {
    status = work();
  } catch (const egraph::ExtractionError&) {
    saturation.finish(report);
    std::cerr << graph_file << ": error: an output has no acyclic term after rewriting\n";
    return UserError;
  } catch (const std::bad_alloc&) {
    return saturation.out_of_memory(graph_file);
  }
  saturation.finish(report);
  return status;
}

}  // namespace eqsat::tools
