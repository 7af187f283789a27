// Reads and checks rule files (.rules, docs/language.md "Rule files") into a
// RuleProgram. Every error of every file is reported at once, one
// `FILE:LINE:COL: error: MESSAGE` line each, in a single DiagnosticError;
// nothing is returned unless all files are clean.
#pragma once

#include "rules/lang/rule_ast.hpp"

#include <span>
#include <string>
#include <vector>

namespace eqsat::rules {

// The text of one rule file and the name diagnostics give it.
// Rewrites and uses without `:ruleset` join `default_ruleset`, declared
// implicitly (a user's files loaded with the shipped ones use `user`).
struct RuleSource {
  std::string file;
  std::string text;
  std::string default_ruleset = "default";
};

// A rule file on disk and the rule set its rules without `:ruleset` join.
struct RuleFile {
  std::string path;
  std::string default_ruleset = "default";
};

// Parses and checks `sources` together: rule names are unique across them,
// a rule set may be declared in one file and used in another, and at most
// one of them has a `schedule`. `appliers` are the built-in applier names a
// `use` may switch on. Throws ops::DiagnosticError listing every error.
RuleProgram parse_rules(std::span<const RuleSource> sources,
                        std::span<const std::string> appliers = {});

// The same for files on disk; an unreadable file is an error like any other.
RuleProgram parse_rule_files(std::span<const std::string> paths,
                             std::span<const std::string> appliers = {});
RuleProgram parse_rule_files(std::span<const RuleFile> files,
                             std::span<const std::string> appliers = {},
                             std::span<const RuleSource> before = {});
// The same after `checked`, the program `parse_rules` gave for `before`
// (read back from its snapshot, rule_snapshot.hpp): as if `before` were
// parsed first, without parsing it again.
RuleProgram parse_rule_files(std::span<const RuleFile> files, std::span<const std::string> appliers,
                             RuleProgram checked, std::span<const RuleSource> before);

}  // namespace eqsat::rules
