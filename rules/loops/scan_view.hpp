// The shared framework of the loop rewrites (scan_*.cpp): a scan e-node
// decoded into its slots (ScanView), a way to add a rebuilt scan, and the
// searcher/applier pair every scan applier derives from.
//
// A scan e-node's operands are [fn, n-steps?, sequences..., mit-sot initial
// histories..., sit-sot initial states..., non-sequences...]. Its body (the
// `fn`) takes one parameter per sequence tap, per mit-sot tap, per sit-sot
// and per non-sequence, in that order, and returns one value per mit-sot,
// per sit-sot, per nit-sot, then the stop flag when `until` is set.
//
//   class MyRewrite final : public ScanApplier {
//     using ScanApplier::ScanApplier;
//     bool rewrite(egraph::EGraph& eg, EClassId root, const ScanView& s) override {
//       ...build operands and a new body, then:
//       auto c = add_scan(g(), s.attrs, new_spec, operands);
//       return c && eg.merge(root, *c);
//     }
//   };
//   egraph::Rewrite r = make_scan_rewrite("my-rewrite", std::make_shared<MyRewrite>(g));
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"
#include "ops/attrs.hpp"

#include <absl/container/flat_hash_set.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::rules {

// One scan e-node, decoded. `fn` is the representative term of the body's
// class; the slot helpers give operand positions, body parameter slots and
// body output positions.
struct ScanView {
  egraph::ENodeId node;
  ops::Attrs attrs;
  ops::ScanSpec spec;
  std::vector<egraph::EClassId> operands;  // canonical classes
  ops::TermRef fn;                         // kind Fn

  std::size_t num_sequences() const { return spec.sequence_taps.size(); }
  std::size_t num_mitsot() const { return spec.mitsot_taps.size(); }
  std::size_t num_sitsot() const { return static_cast<std::size_t>(spec.num_sitsot); }
  std::size_t num_nitsot() const { return static_cast<std::size_t>(spec.num_nitsot); }
  std::size_t num_nonsequences() const { return static_cast<std::size_t>(spec.num_nonsequences); }
  std::size_t num_outputs() const { return num_mitsot() + num_sitsot() + num_nitsot(); }

  // Operand positions.
  std::size_t n_steps_operand() const { return 1; }  // only when spec.has_n_steps
  std::size_t sequence_operand(std::size_t i) const { return 1 + spec.has_n_steps + i; }
  std::size_t mitsot_operand(std::size_t i) const { return sequence_operand(num_sequences()) + i; }
  std::size_t sitsot_operand(std::size_t i) const { return mitsot_operand(num_mitsot()) + i; }
  std::size_t nonsequence_operand(std::size_t i) const { return sitsot_operand(num_sitsot()) + i; }

  // Body parameter slots (nominal numbers).
  std::int64_t sequence_param(std::size_t i, std::size_t tap) const;
  std::int64_t mitsot_param(std::size_t i, std::size_t tap) const;
  std::int64_t sitsot_param(std::size_t i) const;
  std::int64_t nonsequence_param(std::size_t i) const;
  std::int64_t num_params() const;
  const std::vector<ops::TensorType>& params() const;

  // Body output positions: output j of the tuple is body output j; the stop
  // flag follows the nit-sots.
  std::size_t flag_output() const { return num_outputs(); }
  ops::TermRef body_output(std::size_t j) const { return fn->operands()[j]; }
  // The slot of each output's state parameter(s): for output j < mit-sots
  // + sit-sots, the parameter slots that read its past values.
  std::vector<std::int64_t> state_params(std::size_t j) const;

  // True when body output j (or the flag) reads parameter `slot`.
  bool reads(std::size_t output, std::int64_t slot) const;
  // True when any body output (the flag included) reads parameter `slot`.
  bool reads_anywhere(std::int64_t slot) const;
};

// Decodes scan e-node `n`; nullopt when it is not a scan or its body class
// has no `fn` representative.
std::optional<ScanView> view_scan(const TensorEGraph& g, egraph::ENodeId n);

// Adds a scan with the attributes of `base` (any :keep included, unless
// `spec` says otherwise) and the given layout and operands (operands[0] the
// body class). nullopt when it does not type-check.
std::optional<egraph::EClassId> add_scan(TensorEGraph& g, const ops::Attrs& base,
                                         const ops::ScanSpec& spec,
                                         std::span<const egraph::EClassId> operands);

// `t`, a term of one body level, with each nominal k renamed to
// nominal(new_slot[k]) (same type). Closed subterms, nested bodies
// included, are returned as they are.
ops::TermRef rename_nominals(ops::TermRef t, std::span<const std::int64_t> new_slot);

// The most steps the sequences of `s` allow (the shortest length minus its
// deepest tap), when every sequence length is known statically.
std::optional<std::int64_t> sequence_steps(const TensorEGraph& g, const ScanView& s);

// Merges class `a` with `b` (a value computed another way, e.g. a read of a
// rebuilt loop) when `b` exists and its type is compatible with a's; true
// when the e-graph changed.
bool merge_same(TensorEGraph& g, egraph::EClassId a, std::optional<egraph::EClassId> b);

// Merges loop `a` with `b`, the same loop rebuilt (the same work, laid out
// otherwise), unless a may fail and b cannot: a rebuild that lost a check
// is refused (issue 25). True when the e-graph changed.
bool merge_loop(TensorEGraph& g, egraph::EClassId a, std::optional<egraph::EClassId> b);

// Base of the scan appliers: calls `rewrite` for each scan e-node of the
// matched class (a snapshot: nodes added meanwhile wait for the next
// iteration).
class ScanApplier : public egraph::Applier {
 public:
  ScanApplier(TensorEGraph& g, std::string name) : g_(g), name_(std::move(name)) {}
  bool apply(egraph::EGraph& eg, egraph::EClassId root, const egraph::Subst& subst) override;
  std::string to_string() const override { return name_; }

 protected:
  // Returns true when the e-graph changed.
  virtual bool rewrite(egraph::EGraph& eg, egraph::EClassId root, const ScanView& scan) = 0;
  // True for an applier whose rewrite depends only on the loop's form (its
  // scan e-node, the body's representative, the operand classes with their
  // types and known values), not on the loop's readers: apply() then
  // rewrites each form once instead of once per iteration.
  virtual bool depends_only_on_form() const { return false; }
  TensorEGraph& g() { return g_; }
  const TensorEGraph& g() const { return g_; }

 private:
  TensorEGraph& g_;
  std::string name_;
  absl::flat_hash_set<std::vector<std::int64_t>> forms_done_;  // form keys, see form_key
};

// The rewrite `name` running `applier` on every scan.
egraph::Rewrite make_scan_rewrite(std::string name, std::shared_ptr<ScanApplier> applier);

}  // namespace eqsat::rules
