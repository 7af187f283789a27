// `eqsat extract FILE.json [--extractor bottom-up|greedy-dag|ilp] [--time-limit S]`:
// extracts a term DAG from an egraph-serialize file (egglog, extraction-gym)
// and prints it as JSON: dag_cost, tree_cost (null when it overflows a
// double), seconds, optimal, and choices (the file's class id -> node id).
// The file is read as graphs are (ops/source_file.hpp): the OS reason when
// it cannot be, a directory refused, and a size limit.
#include "cli_checks.hpp"
#include "command.hpp"

#include "egraph/extract/extractor.hpp"
#include "egraph/serialize.hpp"
#include "ops/source_file.hpp"

#include <iostream>
#include <memory>
#include <string>

namespace eqsat::tools {
namespace {

// The largest egraph-serialize file read (256 MiB): extraction-gym's largest
// are tens of megabytes; /dev/zero or a runaway file stops here.
constexpr std::size_t kMaxEGraphJsonBytes = std::size_t{256} << 20;

struct ExtractOptions {
  std::string file;
  std::string extractor = "ilp";
  double time_limit = 10.0;
  bool allow_negative_costs = false;
};

int run_extract(const ExtractOptions& options) {
  using namespace eqsat::egraph;
  const ExtractorKind kind = *parse_extractor(options.extractor);
  const std::string text = ops::read_source_file(options.file, kMaxEGraphJsonBytes);
  SerializedEGraph graph;
  try {
    graph = parse_serialized_egraph(text, options.file, ReadOptions{options.allow_negative_costs});
  } catch (const SerializeError& e) {
    std::cerr << e.what() << "\n";
    if (dynamic_cast<const NegativeCostError*>(&e) != nullptr) {
      std::cerr << "(--allow-negative-costs accepts them)\n";
    }
    return UserError;
  }
  if (!graph.unknown_roots.empty()) {
    for (const std::string& root : graph.unknown_roots) {
      std::cerr << options.file << ": error: root e-class " << nlohmann::json(root).dump()
                << " names no class\n";
    }
    return UserError;
  }
  Extraction extraction;
  try {
    extraction = extract(graph.problem, kind, options.time_limit);
  } catch (const ExtractionError& e) {
    std::cerr << options.file << ": error: root e-class "
              << nlohmann::json(graph.class_ids[e.root().value]).dump() << " has no acyclic term\n";
    return UserError;
  }
  nlohmann::ordered_json out = {
      {"extractor", options.extractor},
      {"dag_cost", extraction.dag_cost},
      {"tree_cost", extraction.tree_cost},  // inf is written as null
      {"seconds", extraction.seconds},
      {"optimal", extraction.optimal},
      {"choices", choices_json(graph, extraction)},
  };
  std::cout << out.dump(2) << "\n";
  return Success;
}

void add_extract_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<ExtractOptions>();
  CLI::App* command = app.add_subcommand(
      "extract", "Extract the cheapest term DAG from an egraph-serialize JSON file");
  command->add_option("FILE", options->file, "egraph-serialize JSON (egglog, extraction-gym)")
      ->required();
  command
      ->add_option("--extractor", options->extractor,
                   "bottom-up (tree cost), greedy-dag (shared nodes paid once) or ilp (exact, CBC)")
      ->check(CLI::IsMember({"bottom-up", "greedy-dag", "ilp"}))
      ->capture_default_str();
  command
      ->add_option("--time-limit", options->time_limit,
                   "seconds for the ilp extractor; when reached, the best DAG found is printed "
                   "with optimal=false")
      ->check(positive_seconds())
      ->capture_default_str();
  command->add_flag("--allow-negative-costs", options->allow_negative_costs,
                    "accept negative node costs (rewards, e.g. extraction-gym's maxsat); "
                    "tree cost is then not minimized exactly by bottom-up");
  on_run_reporting_user_errors(*command, action, [options] { return run_extract(*options); });
}

const CommandRegistration kExtractRegistration{"extract", add_extract_command};

}  // namespace
}  // namespace eqsat::tools
