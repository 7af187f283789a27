// What the optimize property tests demand of one random graph
// (random_graph.hpp), and the seed loop that checks it: the optimized
// graph computes the written graph's values (within rounding, a
// stabilization aside), an output whose written computation fails fails
// optimized too (corners), the graph optimizes to the same graph twice,
// never costs more and gains no op the original could not justify. A
// failing seed is reported with both graphs, after shrinking its outputs.
#pragma once

#include "tests/rules/random_graph.hpp"

#include "rules/pipeline/optimize.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace eqsat::testing {

// Why the optimized values differ from the written ones, or nullopt:
// same dtype and shape; equal within rounding (relative and absolute
// tolerance by dtype) where the written value is finite; where it is ±∞,
// an ∞ or a finite value (a stabilization), never NaN; where it is NaN,
// anything when `nan_stays` is false (dot-assoc re-associated a product
// with ±∞ entries), else NaN.
std::optional<std::string> compare(const std::vector<ops::Array>& expected,
                                   const std::vector<ops::Array>& actual,
                                   const ops::Graph& optimized, bool nan_stays = false);

// The outcome of one case.
struct CaseResult {
  std::optional<std::string> failure;
  bool skipped = false;     // the written graph fails on these inputs
  bool stabilized = false;  // values changed by a stabilizing rewrite (allowed)
  ops::Graph optimized;
};

// Everything the property demands of `c` on `inputs`. `corners`: also an
// output whose written computation fails must fail optimized, and a NaN
// must stay NaN unless dot-assoc applied. `applied` (optional) counts,
// per rule, the cases it applied in.
CaseResult check_case(const RandomCase& c, const rules::RuleProgram& rules,
                      const std::vector<ops::Array>& inputs, bool corners,
                      std::map<std::string, int>* applied = nullptr);

// Shrinks a failing case: while some output can be replaced by one of its
// operands (or dropped) and the case still fails, do so.
RandomCase shrink(RandomCase c, const rules::RuleProgram& rules,
                  const std::vector<ops::Array>& inputs, bool corners);

// When the environment variable EQSAT_PROPERTY_FAILURES names a directory,
// writes `graph` there as NAME.eg, `why` (the failure, with the input
// values) in comments above it: a reproducer for `eqsat run --no-opt` and
// `eqsat optimize --validate`. Otherwise does nothing.
void save_failure(const std::string& name, const ops::Graph& graph, const std::string& why);

// Runs seeds [first, first + count) except `excluded` with `options`:
// every case that runs must satisfy the property (Catch2 CHECKs). Adds what
// was built to `built`; returns how many ran (not skipped).
int run_seeds(std::uint64_t first, std::uint64_t count, std::map<std::string, int>* built,
              const GeneratorOptions& options = {}, const std::set<std::uint64_t>& excluded = {});

}  // namespace eqsat::testing
