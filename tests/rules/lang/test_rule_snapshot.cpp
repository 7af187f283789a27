// Snapshots of checked rule programs (rules/lang/rule_snapshot.hpp): they
// read back as the program written, are refused for other texts, and rule
// files read after one give what they give after the texts themselves.
#include "rules/lang/rule_snapshot.hpp"

#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/shipped_rules.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

RuleProgram parse_shipped() {
  return parse_rules(shipped_rule_sources(), builtin_applier_names());
}

// The program after `files` (on disk), as a message when it has errors.
struct Outcome {
  std::string bytes;  // the program's snapshot, when clean
  std::string error;  // the diagnostics otherwise
};

Outcome outcome(const auto& parse, std::span<const RuleSource> sources) {
  try {
    return {RuleSnapshot::write(parse(), sources), ""};
  } catch (const ops::DiagnosticError& e) {
    return {"", e.what()};
  }
}

}  // namespace

TEST_CASE("a snapshot of the shipped rules reads back as the program written") {
  const auto sources = shipped_rule_sources();
  const RuleProgram parsed = parse_shipped();
  const std::string bytes = RuleSnapshot::write(parsed, sources);
  const auto read = RuleSnapshot::read(bytes, rule_sources_hash(sources));
  REQUIRE(read.has_value());
  CHECK(RuleSnapshot::write(*read, sources) == bytes);
  REQUIRE(read->rewrites().size() == parsed.rewrites().size());
  for (std::size_t i = 0; i < parsed.rewrites().size(); ++i) {
    const ast::Rewrite& a = parsed.rewrites()[i];
    const ast::Rewrite& b = read->rewrites()[i];
    INFO(a.name);
    CHECK(b.name == a.name);
    CHECK(b.ruleset == a.ruleset);
    CHECK(ast::to_string(b.lhs) == ast::to_string(a.lhs));
    CHECK(ast::to_string(b.rhs) == ast::to_string(a.rhs));
    CHECK(b.lhs.where == a.lhs.where);
    CHECK(b.where == a.where);
    CHECK(b.conditions.size() == a.conditions.size());
    CHECK(b.commutative == a.commutative);
    CHECK(b.bidirectional == a.bidirectional);
    CHECK(b.finite_domain == a.finite_domain);
  }
  CHECK(read->uses().size() == parsed.uses().size());
  CHECK(read->rulesets().size() == parsed.rulesets().size());
  REQUIRE(read->schedule().steps.size() == parsed.schedule().steps.size());
  for (std::size_t i = 0; i < parsed.schedule().steps.size(); ++i)
    CHECK(read->schedule().steps[i].rulesets == parsed.schedule().steps[i].rulesets);
  CHECK(read->schedule().where == parsed.schedule().where);
}

TEST_CASE("a snapshot is refused for other rule texts") {
  const auto shipped = shipped_rule_sources();
  std::vector<RuleSource> sources(shipped.begin(), shipped.end());
  const std::string bytes = RuleSnapshot::write(parse_shipped(), sources);
  REQUIRE(RuleSnapshot::read(bytes, rule_sources_hash(sources)).has_value());
  sources.back().text += " ";
  CHECK_FALSE(RuleSnapshot::read(bytes, rule_sources_hash(sources)).has_value());
  sources.back().text.pop_back();
  sources.front().file += "x";
  CHECK_FALSE(RuleSnapshot::read(bytes, rule_sources_hash(sources)).has_value());
}

TEST_CASE("a program without a schedule reads back with its implicit step only") {
  const RuleSource source{"t.rules",
                          "(ruleset s) (rewrite r (sum (neg ?x) :axis ?a) (neg (sum ?x :axis ?a)) "
                          ":ruleset s :when ((float ?x) (ndim ?x 2))) (rewrite k (transpose ?x "
                          ":perm (1 0)) ?x :when ((scalar ?x)))"};
  const auto sources = std::span(&source, 1);
  const RuleProgram parsed = parse_rules(sources);
  const std::string bytes = RuleSnapshot::write(parsed, sources);
  const auto read = RuleSnapshot::read(bytes, rule_sources_hash(sources));
  REQUIRE(read.has_value());
  CHECK(RuleSnapshot::write(*read, sources) == bytes);
  // A file read after it: the one implicit step runs every set.
  const RuleProgram after = parse_rule_files({}, {}, *read, sources);
  REQUIRE(after.schedule().steps.size() == 1);
  CHECK(after.schedule().steps[0].rulesets == parsed.schedule().steps[0].rulesets);
}

TEST_CASE("every rule file reads after a snapshot as after the texts") {
  // Each bad rule of tests/rules/fail and a good one, as a user's file after
  // the shipped rules: the same program or the same messages.
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(EQSAT_TESTS_DIR) / "fail"))
    if (entry.path().extension() == ".rules") files.push_back(entry.path());
  std::ranges::sort(files);
  REQUIRE(files.size() >= 30);
  const auto good = std::filesystem::temp_directory_path() / "eqsat-test-snapshot-good.rules";
  std::ofstream(good) << "(rewrite double-to-add (mul ?x 2) (add ?x ?x))\n"
                         "(rewrite log-softmax (neg ?x) ?x)\n";  // a shipped rule's name
  files.push_back(good);
  const auto shipped = shipped_rule_sources();
  const RuleProgram checked = parse_shipped();
  const auto appliers = builtin_applier_names();
  for (const auto& path : files) {
    INFO(path.filename().string());
    const std::vector<RuleFile> user{{path.string(), "user"}};
    const Outcome texts =
        outcome([&] { return parse_rule_files(user, appliers, shipped); }, shipped);
    const Outcome snapshot =
        outcome([&] { return parse_rule_files(user, appliers, checked, shipped); }, shipped);
    CHECK(snapshot.error == texts.error);
    CHECK(snapshot.bytes == texts.bytes);
    CHECK((texts.error.empty() ? texts.bytes.size() : texts.error.size()) > 0);
  }
  std::ofstream(good) << "(rewrite double-to-add (mul ?x 2) (add ?x ?x))\n";
  const std::vector<RuleFile> user{{good.string(), "user"}};
  const RuleProgram after = parse_rule_files(user, appliers, checked, shipped);
  CHECK(after.find_rewrite("double-to-add")->ruleset == "user");
  CHECK(after.schedule().steps.size() == checked.schedule().steps.size());
}
