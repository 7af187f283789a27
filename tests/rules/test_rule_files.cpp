// The shipped rule sets (rules/*.rules): they parse and check together, and
// follow the authors' policy of rules/README.md — one topic (rule set) a
// file, a one-line law above each rule, fast-math never in the default
// schedule.
#include "rules/optimize.hpp"
#include "rules/rule_parser.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace eqsat;
using namespace eqsat::rules;

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
       {"canonicalize", "stabilize", "linalg", "algebra", "fast-math", "expand-gradients"})
    CHECK(p.has_ruleset(set));
}

TEST_CASE("each rule is preceded by its one-line law and lives in its file's rule set") {
  const RuleProgram p = load_rule_files(shipped_files());
  for (const Rewrite& r : p.rewrites()) {
    INFO(r.name << " at " << r.where.file << ":" << r.where.line);
    const auto lines = lines_of(r.where.file);
    REQUIRE(r.where.line >= 2);
    CHECK(lines[r.where.line - 2].rfind(";; ", 0) == 0);
    const std::string stem = std::filesystem::path(r.where.file).stem().string();
    CHECK(r.ruleset == stem);
  }
}

TEST_CASE("the default schedule runs the phases in order and never fast-math") {
  const RuleProgram p = load_rule_files(shipped_files());
  const auto& steps = p.schedule().steps;
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].rulesets == std::vector<std::string>{"calls", "canonicalize", "stabilize"});
  CHECK(steps[1].rulesets == std::vector<std::string>{"expand-gradients"});
  CHECK(steps[2].kind == ScheduleStep::Kind::Saturate);
  for (const auto& step : steps)
    CHECK(std::ranges::find(step.rulesets, "fast-math") == step.rulesets.end());
}
