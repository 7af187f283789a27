// The shipped rule sets (rules/*.rules): they parse and check together, and
// follow the authors' policy of rules/README.md — one topic (rule set) a
// file, a one-line law above each rule, fast-math never in the default
// schedule.
#include "rules/lang/rule_check.hpp"
#include "rules/lang/rule_parser.hpp"
#include "rules/pipeline/optimize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::rules::ast;

namespace {

std::vector<std::string> shipped_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(EQSAT_RULES_DIR))
    if (entry.path().extension() == ".rules") files.push_back(entry.path().string());
  std::ranges::sort(files);
  return files;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("every shipped rule file parses and checks, all together") {
  const auto files = shipped_files();
  REQUIRE(files.size() >= 6);
  const RuleProgram p = load_rule_files(files);
  CHECK(p.rewrites().size() >= 100);
  for (const char* set :
       {"canonicalize", "stabilize", "linalg", "algebra", "fast-math", "expand-gradients",
        "constants", "shapes", "sigmoid", "logsumexp", "views", "where", "reductions", "indexing"})
    CHECK(p.has_ruleset(set));
}

TEST_CASE("each rule is preceded by its one-line law and lives in its file's rule set") {
  const RuleProgram p = load_rule_files(shipped_files());
  for (const Rewrite& r : p.rewrites()) {
    INFO(r.name << " at " << r.where.file << ":" << r.where.line);
    const auto lines = lines_of(r.where.file);
    REQUIRE(r.where.line >= 2);
    CHECK(lines[r.where.line - 2].rfind(";; ", 0) == 0);
    const std::string stem = std::filesystem::path(r.where.file.str()).stem().string();
    CHECK(r.ruleset == stem);
  }
}

TEST_CASE("the default schedule runs the phases in order and never fast-math") {
  const RuleProgram p = load_rule_files(shipped_files());
  const auto& steps = p.schedule().steps;
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].rulesets == std::vector<std::string>{"calls", "canonicalize", "stabilize",
                                                      "sigmoid", "logsumexp", "views"});
  CHECK(steps[1].rulesets == std::vector<std::string>{"expand-gradients"});
  CHECK(steps[2].kind == ScheduleStep::Kind::Saturate);
  for (const auto& step : steps)
    CHECK(std::ranges::find(step.rulesets, "fast-math") == step.rulesets.end());
}

namespace {

// Whether the rewrite named `name` applied while optimizing `g` with `p`.
bool applied(const ops::Graph& g, const RuleProgram& p, const std::string& name) {
  OptimizeReport report;
  optimize(g, p, &report);
  for (const auto& r : report.rules)
    if (r.name == name) return r.applications > 0;
  return false;
}

}  // namespace

TEST_CASE("every shipped rewrite applies to an instance of its own left side") {
  // Instances come from the rule itself (check-rules' generator, operands
  // are inputs unless a condition asks for a constant); each runs through
  // the default schedule until one applies the rule. fast-math is not in
  // the default schedule: its rules run with a schedule of their own (the
  // file alone saturates its set).
  const RuleProgram shipped = load_default_rules();
  const std::vector<std::string> fast_file = {std::string(EQSAT_RULES_DIR) + "/fast-math.rules"};
  const RuleProgram fast = load_rule_files(fast_file);
  RuleCheckOptions options;
  options.prefer_inputs = true;
  options.attempts = 400;
  std::vector<std::string> never;
  for (const Rewrite& r : shipped.rewrites()) {
    const RuleProgram& program = r.ruleset == "fast-math" ? fast : shipped;
    for (const bool reverse : {false, true}) {
      if (reverse && !r.bidirectional) continue;
      const std::string name = reverse ? r.name + "-rev" : r.name;
      bool ok = false;
      for (const ops::Graph& g : left_side_instances(r, reverse, 6, options))
        if ((ok = applied(g, program, name))) break;
      if (!ok) never.push_back(name);
    }
  }
  INFO("rules that never applied: " << fmt::format("{}", fmt::join(never, " ")));
  CHECK(never.empty());
}
