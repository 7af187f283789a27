// The shipped rules' program compiled in at build time
// (rules/pipeline/shipped_program.hpp) is the one parsing their texts gives.
#include "rules/pipeline/shipped_program.hpp"

#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/rule_snapshot.hpp"
#include "rules/lang/shipped_rules.hpp"

#include <catch2/catch.hpp>

using namespace eqsat::rules;

TEST_CASE("the compiled-in snapshot is the program of the compiled-in rule texts") {
  const auto sources = shipped_rule_sources();
  // Made from these very texts: read, not parsed again.
  REQUIRE(RuleSnapshot::read(shipped_rule_snapshot(), rule_sources_hash(sources)).has_value());
  const RuleProgram parsed = parse_rules(sources, builtin_applier_names());
  CHECK(RuleSnapshot::write(shipped_program(), sources) == RuleSnapshot::write(parsed, sources));
  CHECK(shipped_program().rewrites().size() == parsed.rewrites().size());
}
