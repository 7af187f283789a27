// Extraction on the extraction-gym data set: every file of every suite
// folder, each extractor (bottom-up, greedy-dag, ilp with a per-file time
// limit), DAG cost and seconds per file, and a summary per suite comparing
// greedy-dag and ilp with the bottom-up baseline measured in the same run.
//
//   extraction_gym DIR [--ilp-time-limit S] [--no-ilp] [--suites a,b,...] [--csv FILE]
//                  [--allow-negative-costs]
//
// DIR is the data set's folder (extraction-gym's `data/`); without it, the
// environment variable EXTRACTION_GYM_DIR names it. `--no-ilp` runs the
// greedy extractors only (seconds instead of minutes). A file that cannot be read
// (e.g. negative costs without --allow-negative-costs) is listed with its
// error, never skipped silently. Cost ratios are only taken where both
// costs are > 0.
#include "egraph/extract/extractor.hpp"
#include "egraph/serialize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace eqsat::egraph;

namespace {

constexpr ExtractorKind kKinds[] = {ExtractorKind::BottomUp, ExtractorKind::GreedyDag,
                                    ExtractorKind::Ilp};

struct Run {
  double dag_cost = 0.0;
  double seconds = 0.0;
  bool optimal = false;
};

struct FileResult {
  std::string suite, name;
  std::size_t classes = 0, nodes = 0;
  double read_seconds = 0.0;
  std::string error;           // set when the file was rejected
  std::optional<Run> runs[3];  // by kKinds index; empty when that extractor failed
  std::string run_errors;
};

// Per suite and extractor: how the extractor compares with bottom-up.
struct Versus {
  int better = 0, equal = 0, worse = 0;
  double log_ratio_sum = 0.0;
  int ratios = 0;  // files where both costs are > 0
  double seconds = 0.0;
  int optimal = 0;
  void add(const Run& run, const Run& baseline) {
    const double eps = 1e-9 * std::max(1.0, std::abs(baseline.dag_cost));
    if (run.dag_cost < baseline.dag_cost - eps) {
      ++better;
    } else if (run.dag_cost > baseline.dag_cost + eps) {
      ++worse;
    } else {
      ++equal;
    }
    if (run.dag_cost > 0.0 && baseline.dag_cost > 0.0) {
      log_ratio_sum += std::log(run.dag_cost / baseline.dag_cost);
      ++ratios;
    }
    seconds += run.seconds;
    optimal += run.optimal ? 1 : 0;
  }
  std::string geomean() const {
    return ratios == 0 ? "-" : fmt::format("{:.4f}", std::exp(log_ratio_sum / ratios));
  }
};

std::string cost_text(double cost) {
  if (std::isinf(cost)) return "inf";
  return fmt::format("{:.6g}", cost);
}

FileResult run_file(const fs::path& path, const std::string& suite, double ilp_limit,
                    bool allow_negative_costs, bool no_ilp) {
  FileResult result;
  result.suite = suite;
  result.name = path.filename().string();
  const auto start = std::chrono::steady_clock::now();
  SerializedEGraph graph;
  try {
    graph = read_serialized_egraph(path.string(), ReadOptions{allow_negative_costs});
  } catch (const SerializeError& e) {
    result.error = e.what();
    return result;
  }
  result.read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.classes = graph.problem.num_classes();
  result.nodes = graph.problem.num_nodes();
  for (std::size_t k = 0; k < (no_ilp ? 2 : 3); ++k) {
    try {
      const Extraction e = extract(graph.problem, kKinds[k], ilp_limit);
      result.runs[k] = Run{e.dag_cost, e.seconds, e.optimal};
    } catch (const std::exception& e) {
      result.run_errors += fmt::format("{}: {}; ", extractor_name(kKinds[k]), e.what());
    }
  }
  return result;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

int usage() {
  std::cerr << "usage: extraction_gym DIR [--ilp-time-limit S] [--no-ilp] [--suites a,b,...] "
               "[--csv FILE] [--allow-negative-costs]\n"
               "(DIR: extraction-gym's data folder; default: $EXTRACTION_GYM_DIR)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir;
  if (const char* env = std::getenv("EXTRACTION_GYM_DIR")) dir = env;
  bool no_ilp = false;
  double ilp_limit = 10.0;
  std::set<std::string> only;
  std::string csv_path;
  bool allow_negative_costs = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ilp-time-limit" && i + 1 < argc) {
      ilp_limit = std::atof(argv[++i]);
      if (!(ilp_limit > 0.0)) return usage();
    } else if (arg == "--suites" && i + 1 < argc) {
      for (const auto& suite : split(argv[++i])) only.insert(suite);
    } else if (arg == "--no-ilp") {
      no_ilp = true;
    } else if (arg == "--allow-negative-costs") {
      allow_negative_costs = true;
    } else if (arg == "--csv" && i + 1 < argc) {
      csv_path = argv[++i];
    } else if (!arg.starts_with("--")) {
      dir = arg;
    } else {
      return usage();
    }
  }
  if (dir.empty()) return usage();
  if (!fs::is_directory(dir)) {
    std::cerr << dir.string() << ": error: not a directory\n";
    return 1;
  }
  std::vector<fs::path> suites;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && (only.empty() || only.contains(entry.path().filename().string()))) {
      suites.push_back(entry.path());
    }
  }
  std::sort(suites.begin(), suites.end());

  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    csv << "suite,file,classes,nodes,bottom_up_cost,bottom_up_s,greedy_dag_cost,greedy_dag_s,"
           "ilp_cost,ilp_s,ilp_optimal,error\n";
  }
  std::cout << fmt::format("extraction-gym in {}, ilp time limit {} s per file\n\n", dir.string(),
                           ilp_limit);
  std::cout << "| suite | file | classes | nodes | bottom-up | s | greedy-dag | s | ilp | s | "
               "optimal |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, std::pair<Versus, Versus>> summary;  // greedy, ilp vs bottom-up
  std::map<std::string, int> files, rejected, failed;
  std::map<std::string, double> baseline_seconds;
  for (const auto& suite_dir : suites) {
    const std::string suite = suite_dir.filename().string();
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(suite_dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json")
        paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& path : paths) {
      const FileResult r = run_file(path, suite, ilp_limit, allow_negative_costs, no_ilp);
      ++files[suite];
      if (!r.error.empty()) {
        ++rejected[suite];
        std::cout << fmt::format("| {} | {} | rejected: {} |||||||||\n", suite, r.name, r.error);
        if (csv) csv << fmt::format("{},{},,,,,,,,,,\"{}\"\n", suite, r.name, r.error);
        continue;
      }
      auto cell = [&](std::size_t k) {
        return r.runs[k]
                   ? fmt::format("{} | {:.3f}", cost_text(r.runs[k]->dag_cost), r.runs[k]->seconds)
                   : std::string(no_ilp && k == 2 ? "- | -" : "failed | -");
      };
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", suite, r.name,
                               r.classes, r.nodes, cell(0), cell(1), cell(2),
                               r.runs[2] ? (r.runs[2]->optimal ? "yes" : "no") : "-");
      if (!r.run_errors.empty()) std::cout << "  errors: " << r.run_errors << "\n";
      if (csv) {
        auto value = [&](std::size_t k, bool seconds) {
          return r.runs[k] ? fmt::format("{}", seconds ? r.runs[k]->seconds : r.runs[k]->dag_cost)
                           : std::string();
        };
        csv << fmt::format("{},{},{},{},{},{},{},{},{},{},{},\"{}\"\n", suite, r.name, r.classes,
                           r.nodes, value(0, false), value(0, true), value(1, false),
                           value(1, true), value(2, false), value(2, true),
                           r.runs[2] && r.runs[2]->optimal ? 1 : 0, r.run_errors);
      }
      if (!r.runs[0] || !r.runs[1] || (!no_ilp && !r.runs[2])) {
        ++failed[suite];
        continue;
      }
      summary[suite].first.add(*r.runs[1], *r.runs[0]);
      if (!no_ilp) summary[suite].second.add(*r.runs[2], *r.runs[0]);
      baseline_seconds[suite] += r.runs[0]->seconds;
    }
  }

  std::cout << "\nSummary against bottom-up (better/equal/worse files, geometric mean of the "
               "DAG-cost ratio, total extractor seconds):\n\n";
  std::cout << "| suite | files | rejected | bottom-up s | greedy-dag b/e/w | greedy-dag ratio | "
               "greedy-dag s | ilp b/e/w | ilp ratio | ilp s | ilp optimal |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n";
  Versus all_greedy, all_ilp;
  int all_files = 0, all_rejected = 0;
  double all_baseline = 0.0;
  auto row = [&](const std::string& name, int n, int rej, double base, const Versus& g,
                 const Versus& i) {
    std::cout << fmt::format(
        "| {} | {} | {} | {:.2f} | {}/{}/{} | {} | {:.2f} | {}/{}/{} | {} | {:.2f} | {}/{} "
        "|\n",
        name, n, rej, base, g.better, g.equal, g.worse, g.geomean(), g.seconds, i.better, i.equal,
        i.worse, i.geomean(), i.seconds, i.optimal, i.better + i.equal + i.worse);
  };
  for (const auto& [suite, versus] : summary) {
    row(suite, files[suite], rejected[suite], baseline_seconds[suite], versus.first, versus.second);
    all_files += files[suite];
    all_rejected += rejected[suite];
    all_baseline += baseline_seconds[suite];
    auto merge = [](Versus& into, const Versus& from) {
      into.better += from.better;
      into.equal += from.equal;
      into.worse += from.worse;
      into.log_ratio_sum += from.log_ratio_sum;
      into.ratios += from.ratios;
      into.seconds += from.seconds;
      into.optimal += from.optimal;
    };
    merge(all_greedy, versus.first);
    merge(all_ilp, versus.second);
  }
  for (const auto& [suite, n] : files) {
    if (!summary.contains(suite)) {
      std::cout << fmt::format("| {} | {} | {} | - | - | - | - | - | - | - | - |\n", suite, n,
                               rejected[suite]);
      all_files += n;
      all_rejected += rejected[suite];
    }
  }
  row("all", all_files, all_rejected, all_baseline, all_greedy, all_ilp);
  int all_failed = 0;
  for (const auto& [suite, n] : failed) all_failed += n;
  if (all_failed > 0)
    std::cout << fmt::format("\n{} files had an extractor fail (see above).\n", all_failed);
  return 0;
}
