// The shipped rule files' checked program without parsing them: the build
// parses and checks them once (rules/lang/snapshot/make_rule_snapshot.cpp)
// and compiles the snapshot in (rules/lang/rule_snapshot.hpp).
#pragma once

#include "rules/lang/rule_ast.hpp"

#include <string_view>

namespace eqsat::rules {

// The snapshot's bytes (defined by the generated shipped_snapshot.cpp).
std::string_view shipped_rule_snapshot();

// What parse_rules(shipped_rule_sources(), builtin_applier_names()) gives:
// read from the snapshot, or parsed when the snapshot was made from other
// texts than the ones compiled in.
RuleProgram shipped_program();

}  // namespace eqsat::rules
