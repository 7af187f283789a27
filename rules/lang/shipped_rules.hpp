// The shipped rule files (rules/*.rules), compiled into the library so that
// the program and the Python module find them wherever they are installed.
// The build generates their definition from the files of the source tree.
#pragma once

#include "rules/lang/rule_parser.hpp"

#include <span>

namespace eqsat::rules {

// Every shipped rule file, in name order; `file` is `rules/NAME.rules`.
std::span<const RuleSource> shipped_rule_sources();

}  // namespace eqsat::rules
