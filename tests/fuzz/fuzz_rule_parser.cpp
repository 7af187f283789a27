// Fuzz target: the rule parser and checker. Any text is a checked rule
// program or a DiagnosticError listing its errors; never a crash.
#include "ops/diagnostic.hpp"
#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/rule_parser.hpp"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eqsat;
  static const std::vector<std::string> appliers = rules::builtin_applier_names();
  const rules::RuleSource source{"fuzz.rules",
                                 std::string(reinterpret_cast<const char*>(data), size)};
  try {
    rules::parse_rules({&source, 1}, appliers);
  } catch (const ops::DiagnosticError&) {
  }
  return 0;
}
