// `--validate`: the user's safety net, as Alive2 is LLVM's. Runs the graph
// as written and as optimized on random input sets (validation_inputs.hpp)
// and refuses a difference, naming the output, the input set and the rules
// on the path from the written output to the optimized one (from an
// explanation: explanation.hpp). Testing, not a proof: it checks the input
// sets it draws, not every input.
//
//   ValidationResult v = validate_optimization(written, best, rules, options, {});
//   if (v.mismatch) std::cerr << to_string(*v.mismatch, "g.eg");
#pragma once

#include "rules/pipeline/optimize.hpp"

#include "ops/array.hpp"
#include "ops/graph.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::rules {

// Relative and absolute tolerance, by precision, for an output whose term
// the optimizer changed: |w − o| ≤ tol·(1 + max(|w|, |o|)), with tol 1e-4
// when f32 takes part anywhere in the graph, else 1e-7. An output whose
// term is unchanged must be equal (NaN equals NaN).
inline constexpr double kValidateTolerance = 1e-7;
inline constexpr double kValidateToleranceF32 = 1e-4;

struct ValidateOptions {
  std::size_t input_sets = 3;
  std::uint64_t seed = 1;
  // Empty, or one entry per graph input: a value kept in every set.
  std::vector<std::optional<ops::Array>> fixed{};
  // Called with the largest type of each input before any set is drawn
  // (a memory check may throw there).
  std::function<void(const std::vector<ops::TensorType>&)> before_drawing{};
};

// A difference between the written and the optimized graph.
struct ValidationMismatch {
  std::string output;
  std::size_t input_set = 0;  // from 1
  std::size_t input_sets = 0;
  std::string inputs;      // the set's values (ValidationInputs::describe)
  std::string difference;  // which element and both values, or which side fails and why
  // The rules on the path from the written output to the optimized one, in
  // order of first use; `path_note` says why when they are not known.
  std::vector<std::string> rules;
  std::string path_note;
};

struct ValidationResult {
  std::size_t input_sets = 0;  // evaluated
  // Sets on which the written graph fails: each output is then checked
  // alone (an output whose written computation fails must fail optimized).
  std::size_t written_fails = 0;
  // Outputs `(grad COST WRT)`, checked against finite differences of the
  // written COST (validate_gradients.hpp), on `gradient_sets` sets; the
  // sets holding ±∞ or NaN are skipped for them.
  std::vector<std::string> gradients;
  std::size_t gradient_sets = 0;
  std::size_t gradient_sets_skipped = 0;
  // Other outputs holding a `grad`, which the written graph cannot run:
  // not compared.
  std::vector<std::string> unchecked;
  std::optional<ValidationMismatch> mismatch;  // the first difference found
};

// Compares `written` and `optimized` (the result of optimize(written, rules,
// _, options)) on the input sets. Element by element: NaN equals NaN; an
// unchanged output term must give equal values; a changed one agrees within
// the tolerance above. Differences the design allows: where the written
// value is ±∞, NaN or 0 (an artefact of range: a NaN only when, where it
// first appears, an operand holds ±∞ or 0, so √, log and pow of a negative
// stay NaN) and the optimized one finite (or ±∞ for a NaN of range),
// when a `stabilize` rule is on the path; where the written value is ±∞ or
// NaN, when a rule that re-associates (`dot-assoc`, a `fast-math` rule) is.
// A run-time error of the written output must stay an error, unless it
// may lie in work the output does not read (the first failing term is
// reached only through the inputs of loops and calls, or fails in a loop's
// or a call's body; a loop's own error on its inputs must stay); an optimized
// output that fails where the written one runs is a difference. An output
// holding a `grad` has no written value (the executor runs no `grad`): an
// output `(grad COST WRT)` is compared with central finite differences of
// the written COST at smooth points (validate_gradients.hpp), any other
// is left out and listed in `unchecked`. The path is
// found (only when values differ) by optimizing again with explanations on;
// when that fails, `path_note` says so and the difference stands.
ValidationResult validate_optimization(const ops::Graph& written, const ops::Graph& optimized,
                                       const RuleProgram& rules, const OptimizeOptions& options,
                                       const ValidateOptions& validate);

// The refusal as text: `SOURCE: error: --validate: output NAME differs on
// input set K of N`, then indented lines with the difference, the input set
// and the rules on the path.
std::string to_string(const ValidationMismatch& m, const std::string& source);

// The success line: `--validate: N input sets agree` (how many the written
// graph failed on, which outputs were not compared).
std::string summary(const ValidationResult& r);

}  // namespace eqsat::rules
