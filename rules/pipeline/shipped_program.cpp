#include "rules/pipeline/shipped_program.hpp"

#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/rule_parser.hpp"
#include "rules/lang/rule_snapshot.hpp"
#include "rules/lang/shipped_rules.hpp"

namespace eqsat::rules {

RuleProgram shipped_program() {
  const auto sources = shipped_rule_sources();
  if (auto program = RuleSnapshot::read(shipped_rule_snapshot(), rule_sources_hash(sources)))
    return std::move(*program);
  return parse_rules(sources, builtin_applier_names());
}

}  // namespace eqsat::rules
