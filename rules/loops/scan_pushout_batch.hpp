// Vectorizing loop bodies: the values a body subterm takes at every step of
// its loop, computed at once outside the loop on whole sequences (the step
// axis leading). Shared by scan-push-out-seqs and scan-push-out-nitsots.
#pragma once

#include "rules/loops/scan_view.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace eqsat::rules {

// How a body subterm vectorizes.
enum class Batch {
  No,         // it reads a state, or an op without a vectorized form
  Invariant,  // it reads only non-sequences and constants: the same every step
  PerStep,    // elementwise, dot, axis-wise ops (reductions, softmax, axis moves, concat, ...)
};

// Builds the step-stacked outer value of the subterms of one scan's body.
//
// The loop's steps must be laid out outside: never an until-loop (it may
// stop early); its trip count n is a constant >= 1 with every sequence
// statically long enough, or the loop has one sequence and no :n-steps (n
// is that sequence's length less its deepest tap). Sequence i read at tap
// k is then the window seq_i[k : k + n]. When n is not known to be >= 1,
// only leaves may be invariant parts (unless allow_invariant_work):
// computing other invariant work outside would run it for a loop that may
// run no step (and it can fail), and no op that may fail is batched (over
// no rows it could fail where the loop applies it to nothing).
class StepBatcher {
 public:
  StepBatcher(TensorEGraph& g, const ScanView& s);

  // Lets the next values of the states (body outputs of mit-sots and
  // sit-sots storing every step) stand for themselves: stacked, they are
  // (get J scan), scan being the loop's class. Only for values merged with
  // the loop's own outputs, never for inputs of a new loop.
  void read_state_outputs(egraph::EClassId scan);
  // The same for any body terms: outputs[i].first stacked is (get
  // outputs[i].second scan), `scan` a loop with these steps (one extended
  // with nit-sots returning them).
  void read_outputs(egraph::EClassId scan,
                    std::span<const std::pair<ops::TermRef, std::size_t>> outputs);

  // Lets invariant work run outside when n is unknown: for a rewrite of a
  // value that fails anyway when the loop runs no step (its last step read).
  void allow_invariant_work() {
    invariant_work_ = true;
    kinds_.clear();
  }

  // False when the loop's steps cannot be laid out outside.
  bool ok() const { return ok_; }
  // The trip count, when it is a constant.
  std::optional<std::int64_t> steps() const { return steps_; }

  // True when a term of this op can be PerStep (given stacked operands).
  static bool batches(ops::OpKind kind) {
    return ops::is_elementwise(kind) || kind == ops::OpKind::Dot || ops::is_axis_wise(kind);
  }

  Batch classify(ops::TermRef t);
  // The outer value of a body subterm `t` (classified PerStep or
  // Invariant): for PerStep, its value at every step stacked along a new
  // leading axis; for Invariant, its one value. nullopt when an op does
  // not type-check.
  std::optional<egraph::EClassId> add(ops::TermRef t);

 private:
  bool is_state_slot(std::int64_t slot) const;
  // t's kind when its operands do not decide it, else nullopt.
  std::optional<Batch> own_kind(ops::TermRef t) const;
  // The kind of an op over sequence elements, its operands classified.
  Batch kind_from_operands(ops::TermRef t) const;
  // Whether applying t's op to its operands' per-step values may fail.
  static bool may_fail_per_step(ops::TermRef t);
  // The outer value of one term, its operands added.
  std::optional<egraph::EClassId> add_one(ops::TermRef t);
  std::optional<egraph::EClassId> window(std::int64_t slot);
  // The trip count of a loop over sequences of unknown lengths, as a class:
  // the fewest steps any sequence allows.
  std::optional<egraph::EClassId> run_time_steps();
  // The stacked value of a PerStep term, its operands added.
  std::optional<egraph::EClassId> add_per_step(ops::TermRef t);
  std::optional<egraph::EClassId> add_dot(ops::TermRef t, egraph::EClassId a, egraph::EClassId b);
  // `c` when it has t's type behind the step axis, else nullopt.
  std::optional<egraph::EClassId> checked(ops::TermRef t, std::optional<egraph::EClassId> c) const;

  TensorEGraph& g_;
  const ScanView& s_;
  bool ok_ = false;
  bool invariant_work_ = false;
  std::optional<std::int64_t> steps_;
  std::optional<egraph::EClassId> run_time_steps_;
  std::vector<std::pair<std::size_t, std::int64_t>> seq_tap_;  // per sequence slot
  std::vector<egraph::EClassId> invariant_args_;               // non-sequence slots bound
  std::optional<egraph::EClassId> scan_;
  std::unordered_map<ops::TermRef, std::size_t> state_output_;  // body term -> output of scan_
  std::unordered_map<ops::TermRef, Batch> kinds_;
  std::unordered_map<ops::TermRef, egraph::EClassId> added_;
};

}  // namespace eqsat::rules
