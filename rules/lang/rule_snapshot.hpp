// A checked RuleProgram as bytes, so that the shipped rule files are parsed
// and checked once, at build time (rules/snapshot/make_rule_snapshot.cpp),
// and a process reads their program back instead of parsing 40 KB of rule
// text on every start. The bytes hold a hash of the texts they were made
// from; the reader gives nothing when the texts differ (a stale build), and
// the caller parses the texts as before.
#pragma once

#include "rules/lang/rule_ast.hpp"
#include "rules/lang/rule_parser.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace eqsat::rules {

// A hash of the files' names and texts, in order (stable across processes).
std::uint64_t rule_sources_hash(std::span<const RuleSource> sources);

class RuleSnapshot {
 public:
  // The program of `sources` (parsed and checked), with their hash.
  static std::string write(const RuleProgram& program, std::span<const RuleSource> sources);
  // The program written by `write` for sources of hash `hash`; nothing when
  // `bytes` were made from other sources. Bytes `write` did not produce
  // are an internal error.
  static std::optional<RuleProgram> read(std::string_view bytes, std::uint64_t hash);
};

}  // namespace eqsat::rules
