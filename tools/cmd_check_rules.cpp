// `eqsat check-rules FILE... [--seed N] [--attempts N]`: checks the rule
// files (all errors at once), then evaluates both sides of every rewrite on
// random operands of several dtypes and shapes and prints one line per
// rule: `NAME: sound (K instances)`, `NAME: untested (no instance
// type-checked)`, `NAME: unsound: COUNTER-EXAMPLE` or, for a `:domain
// finite` rule that differs only at ±∞ or NaN, `NAME: finite only:
// COUNTER-EXAMPLE`. Rules of the `fast-math` rule set hold only up to
// rounding or for finite values, by design: their failures print `NAME:
// approximate (fast-math): ...` and a closing count, and do not fail the
// check. Exit status 1 when a file has errors or a rule outside fast-math
// is unsound.
#include "cli_checks.hpp"
#include "command.hpp"

#include "rules/lang/rule_check.hpp"
#include "rules/lang/rule_parser.hpp"
#include "rules/pipeline/optimize.hpp"

#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::tools {
namespace {

// The rule set of laws that IEEE floats only approximate (rules/fast-math.rules).
constexpr std::string_view kApproximateRuleset = "fast-math";

struct CheckRulesArgs {
  std::vector<std::string> files;
  std::uint64_t seed = 1;
  std::size_t attempts = 300;
};

int run_check_rules(const CheckRulesArgs& args) {
  rules::RuleProgram program = [&] {
    try {
      return rules::load_rule_files(args.files);
    } catch (const ops::DiagnosticError& e) {
      std::cerr << e.what() << "\n";
      throw;
    }
  }();
  bool all_sound = true;
  std::size_t approximate = 0;
  for (const rules::ast::Rewrite& r : program.rewrites()) {
    const rules::RuleVerdict v = rules::check_rule(r, {args.seed, args.attempts});
    const bool by_design =
        v.kind == rules::RuleVerdict::Kind::Unsound && r.ruleset == kApproximateRuleset;
    std::cout << r.name << ": "
              << (by_design ? "approximate (fast-math)" : rules::to_string(v.kind));
    if (v.kind == rules::RuleVerdict::Kind::Sound)
      std::cout << " (" << v.instances << " instances)";
    else if (v.kind == rules::RuleVerdict::Kind::Untested)
      std::cout << " (no instance type-checked and met the conditions)";
    else
      std::cout << ": " << v.counterexample;
    std::cout << "\n";
    approximate += by_design ? 1 : 0;
    all_sound = all_sound && (by_design || v.kind != rules::RuleVerdict::Kind::Unsound);
  }
  if (approximate > 0)
    std::cout << approximate << " fast-math rule" << (approximate == 1 ? "" : "s")
              << " differ on some inputs, by design (laws of real numbers that floats only "
                 "approximate; the default schedule never runs them)\n";
  for (const rules::ast::Use& u : program.uses())
    std::cout << u.applier << ": built-in applier (not checked)\n";
  return all_sound ? Success : UserError;
}

void add_check_rules_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<CheckRulesArgs>();
  CLI::App* cmd = app.add_subcommand("check-rules",
                                     "Check rule files, then test every rewrite on random inputs");
  cmd->add_option("FILE", args->files, "rule files (.rules), checked together")->required();
  cmd->add_option("--seed", args->seed, "random seed (default 1)")->check(seed_number());
  // Bounded, so that a typo cannot start a run that never ends.
  cmd->add_option("--attempts", args->attempts,
                  "random instances per rule direction, 1 to 100000 (default 300), finite and "
                  "as many at +-inf, NaN, -0")
      ->check(whole_number_in(1, rules::kMaxCheckAttempts));
  cmd->callback([args, &action] {
    action = [args] {
      try {
        return run_check_rules(*args);
      } catch (const ops::DiagnosticError&) {
        return static_cast<int>(UserError);
      }
    };
  });
}

const CommandRegistration kCheckRulesRegistration{"check-rules", add_check_rules_command};

}  // namespace
}  // namespace eqsat::tools
