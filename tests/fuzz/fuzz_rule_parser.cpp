// Fuzz target: the rule parser and checker. Any text is a checked rule
// program or a DiagnosticError listing its errors; never a crash. The first
// rewrites of a program that parses are then checked numerically
// (check_rule, as `eqsat check-rules` does) on a few instances: a verdict,
// never a crash or an escaped exception.
#include "ops/diagnostic.hpp"
#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/rule_check.hpp"
#include "rules/lang/rule_parser.hpp"

#include <cstdint>
#include <optional>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eqsat;
  static const std::vector<std::string> appliers = rules::builtin_applier_names();
  const rules::RuleSource source{"fuzz.rules",
                                 std::string(reinterpret_cast<const char*>(data), size)};
  std::optional<rules::RuleProgram> program;
  try {
    program.emplace(rules::parse_rules({&source, 1}, appliers));
  } catch (const ops::DiagnosticError&) {
    return 0;
  }
  // Bounded: two rewrites, a few instances each, so that one input stays
  // well under the fuzzer's time per input.
  constexpr std::size_t kRewrites = 2;
  std::size_t checked = 0;
  for (const rules::ast::Rewrite& r : program->rewrites()) {
    if (checked++ == kRewrites) break;
    rules::RuleCheckOptions options;
    options.attempts = 3;
    const rules::RuleVerdict v = rules::check_rule(r, options);
    // At most `attempts` finite and as many corner instances a direction;
    // a rule found sound was evaluated at least once.
    if (v.instances > 2 * 2 * options.attempts) __builtin_trap();
    if (v.kind == rules::RuleVerdict::Kind::Sound && v.instances == 0) __builtin_trap();
  }
  return 0;
}
