#include "rules/loops/scan_rewrites.hpp"

#include "rules/loops/scan_view.hpp"
#include "rules/tensor/substitute.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;
using ops::TermRef;

namespace {

inline constexpr std::int64_t kMaxInlinedElements = 64;

// Every output of the body, the stop flag included.
std::vector<std::size_t> all_outputs(const ScanView& s) {
  std::vector<std::size_t> out(s.fn->arity());
  for (std::size_t j = 0; j < out.size(); ++j) out[j] = j;
  return out;
}

// Which non-sequences a DropNonSequence drops.
enum class Drop {
  Constant,   // its value is a small constant: moved into the body
  Duplicate,  // an earlier non-sequence has the same value: the body reads that one
};

// Drops non-sequences of the scans in a class, one per application.
class DropNonSequence final : public ScanApplier {
 public:
  DropNonSequence(TensorEGraph& g, Drop mode)
      : ScanApplier(g, mode == Drop::Constant ? "scan-inline-constants" : "scan-merge-duplicates"),
        mode_(mode) {}

 private:
  bool rewrite(egraph::EGraph&, EClassId root, const ScanView& s) override {
    for (std::size_t j = 0; j < s.num_nonsequences(); ++j) {
      const std::int64_t slot = s.nonsequence_param(j);
      const EClassId outer = s.operands[s.nonsequence_operand(j)];
      const bool read = s.reads_anywhere(slot);
      // Where the body reads the dropped parameter: another slot, or a value.
      std::int64_t to = -1;
      EClassId value;
      if (mode_ == Drop::Constant) {
        const TensorData& d = g().data(outer);
        if (!read || !d.value || d.value->size() > kMaxInlinedElements) continue;
        value = g().add_term(ops::Term::constant(*d.value));
      } else {
        std::optional<std::size_t> same;
        for (std::size_t i = 0; i < j && !same; ++i)
          if (s.operands[s.nonsequence_operand(i)] == outer) same = i;
        if (!same) continue;
        to = s.nonsequence_param(*same);
      }
      // The first droppable non-sequence; later ones go in later iterations.
      const auto body = body_without(s, slot, 1, to, value);
      if (!body) return false;
      ops::ScanSpec smaller = s.spec;
      --smaller.num_nonsequences;
      std::vector<EClassId> operands = s.operands;
      operands.erase(operands.begin() + static_cast<std::ptrdiff_t>(s.nonsequence_operand(j)));
      operands[0] = *body;
      const auto scan = add_scan(g(), s.attrs, smaller, operands);
      return merge_loop(g(), root, scan);
    }
    return mode_ == Drop::Constant && inline_sequence(root, s);
  }

  // A sequence whose rows all hold one small constant (PyTensor's alloc
  // inputs): its tap parameters read that row in the body, and the loop
  // no longer reads it. Only when no length check is lost: the step count
  // is a constant the sequence allows, or every sequence length is static
  // (the count then becomes :n-steps).
  bool inline_sequence(EClassId root, const ScanView& s) {
    std::optional<std::int64_t> n;
    if (s.spec.has_n_steps) {
      if (const auto& u = g().data(s.operands[s.n_steps_operand()]).uniform)
        n = static_cast<std::int64_t>(*u);
    } else {
      n = sequence_steps(g(), s);
    }
    if (!n) return false;
    for (std::size_t j = 0; j < s.num_sequences(); ++j) {
      const TensorData& d = g().data(s.operands[s.sequence_operand(j)]);
      const ops::TensorType& t = d.tensor_type();
      const ops::Dims row(t.dims.begin() + 1, t.dims.end());
      const auto& taps = s.spec.sequence_taps[j];
      if (!d.uniform || t.dims[0] == ops::kUnknownDim || t.dims[0] - taps.back() < *n ||
          std::ranges::any_of(row, [](std::int64_t x) { return x == ops::kUnknownDim; }))
        continue;
      const ops::Array value = ops::Array::filled(t.dtype, row, *d.uniform);
      if (value.size() > kMaxInlinedElements) continue;
      const EClassId constant = g().add_term(ops::Term::constant(value));
      const auto body = body_without(s, s.sequence_param(j, 0),
                                     static_cast<std::int64_t>(taps.size()), -1, constant);
      if (!body) return false;
      ops::ScanSpec fewer = s.spec;
      fewer.sequence_taps.erase(fewer.sequence_taps.begin() + static_cast<std::ptrdiff_t>(j));
      std::vector<EClassId> operands = s.operands;
      operands.erase(operands.begin() + static_cast<std::ptrdiff_t>(s.sequence_operand(j)));
      operands[0] = *body;
      if (!fewer.has_n_steps) {
        fewer.has_n_steps = true;
        operands.insert(operands.begin() + 1,
                        g().add_term(ops::Term::scalar(ops::DType::I64, static_cast<double>(*n))));
      }
      const auto scan = add_scan(g(), s.attrs, fewer, operands);
      return merge_loop(g(), root, scan);
    }
    return false;
  }

  // s's body without parameters [first, first + count): the body reads
  // each of them as slot `to` (numbered as before the drop, below first)
  // or, when `to` is -1, as `value`.
  std::optional<EClassId> body_without(const ScanView& s, std::int64_t first, std::int64_t count,
                                       std::int64_t to, EClassId value) {
    std::vector<std::int64_t> slot_of;
    std::vector<EClassId> values(static_cast<std::size_t>(s.num_params()));
    for (std::int64_t k = 0; k < s.num_params(); ++k) {
      const bool dropped = k >= first && k < first + count;
      slot_of.push_back(dropped ? to : k < first ? k : k - count);
      if (dropped) values[static_cast<std::size_t>(k)] = value;
    }
    std::vector<ops::TensorType> params = s.params();
    params.erase(params.begin() + first, params.begin() + first + count);
    return remap_body(g(), s.operands[0], slot_of, values, std::move(params), all_outputs(s));
  }

  Drop mode_;
};

// The first maximal subterm of a body level (its outputs `roots`) that
// reads only the slots in [lo, hi) and is an op application (worth
// computing once); nullptr when there is none.
TermRef invariant_subterm(std::span<const TermRef> roots, std::int64_t lo, std::int64_t hi) {
  TermRef found = nullptr;
  ops::for_each_post_order(
      roots, ops::Bodies::Skip, [](TermRef) {},
      [&](TermRef t) {
        const auto& free = t->free_nominals();
        if (found || free.empty()) return false;  // closed: constant-folded, not hoisted
        if (t->kind() != OpKind::Nominal && !t->is_tuple() && free.front() >= lo &&
            free.back() < hi)
          found = t;
        return !found;
      });
  return found;
}

// Moves work that reads only non-sequences out of the scans in a class.
class HoistInvariant final : public ScanApplier {
 public:
  explicit HoistInvariant(TensorEGraph& g) : ScanApplier(g, "scan-hoist-invariants") {}

 private:
  bool depends_only_on_form() const override { return true; }
  bool rewrite(egraph::EGraph&, EClassId root, const ScanView& s) override {
    if (s.num_nonsequences() == 0 || !runs_a_step(s)) return false;
    const std::int64_t nparams = s.num_params();
    const std::int64_t lo = s.nonsequence_param(0);
    const TermRef target = invariant_subterm(s.fn->operands(), lo, nparams);
    if (!target) return false;
    // The outer value: the subterm with each non-sequence slot bound to its input.
    std::vector<EClassId> args(static_cast<std::size_t>(nparams));
    for (std::size_t j = 0; j < s.num_nonsequences(); ++j)
      args[static_cast<std::size_t>(s.nonsequence_param(j))] = s.operands[s.nonsequence_operand(j)];
    const EClassId inner = g().add_term(target);
    const auto outer = bind_parameters(g(), s.operands[0], args)(inner);
    if (!outer) return false;
    const ops::TensorType& t = target->tensor_type();
    Substitution hoist(g(), {{inner, nominal_class(g(), nparams, t)}});
    std::vector<EClassId> outputs;
    for (EClassId o : body_outputs(g(), s.operands[0])) {
      const auto image = hoist(o);
      if (!image) return false;
      outputs.push_back(*image);
    }
    std::vector<ops::TensorType> params = s.params();
    params.push_back(t);
    const auto body = add_body(g(), std::move(params), outputs);
    if (!body) return false;
    std::vector<EClassId> operands = s.operands;
    operands[0] = *body;
    operands.push_back(*outer);
    ops::ScanSpec bigger = s.spec;
    ++bigger.num_nonsequences;
    const auto scan = add_scan(g(), s.attrs, bigger, operands);
    return merge_loop(g(), root, scan);
  }

  // True when the loop provably runs at least one step. Hoisted work runs
  // even when the loop runs none, and it can fail (max of an empty axis,
  // an index out of range) where the loop never evaluated it.
  bool runs_a_step(const ScanView& s) const {
    if (s.spec.has_n_steps) {
      const TensorData& n = g().data(s.operands[s.n_steps_operand()]);
      if (!n.uniform || *n.uniform < 1) return false;
    }
    for (std::size_t i = 0; i < s.num_sequences(); ++i) {
      const ops::Dims& d = g().data(s.operands[s.sequence_operand(i)]).tensor_type().dims;
      if (d.empty() || d[0] == ops::kUnknownDim || d[0] <= s.spec.sequence_taps[i].back())
        return false;
    }
    return true;
  }
};

}  // namespace

egraph::Rewrite make_scan_inline_constants(TensorEGraph& g) {
  return make_scan_rewrite("scan-inline-constants",
                           std::make_shared<DropNonSequence>(g, Drop::Constant));
}

egraph::Rewrite make_scan_hoist_invariants(TensorEGraph& g) {
  return make_scan_rewrite("scan-hoist-invariants", std::make_shared<HoistInvariant>(g));
}

egraph::Rewrite make_scan_merge_duplicates(TensorEGraph& g) {
  return make_scan_rewrite("scan-merge-duplicates",
                           std::make_shared<DropNonSequence>(g, Drop::Duplicate));
}

}  // namespace eqsat::rules
