#include "scan_rewrites.hpp"

#include "op_symbols.hpp"
#include "substitute.hpp"

#include <algorithm>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;
using ops::TermRef;

namespace {

inline constexpr std::int64_t kMaxInlinedElements = 64;

// Finds every class holding a scan.
class ScanSearcher final : public egraph::Searcher {
 public:
  const egraph::VarLayout& layout() const override { return layout_; }
  void search(const egraph::EGraph& g, egraph::Matches& out, std::size_t limit) const override {
    out.layout = &layout_;
    for (EClassId c : g.classes_with_op(op_symbol(OpKind::Scan))) {
      if (out.size() >= limit) return;
      out.roots.push_back(c);
    }
  }
  void search_eclass(const egraph::EGraph& g, EClassId c, egraph::Matches& out,
                     std::size_t limit) const override {
    out.layout = &layout_;
    for (egraph::ENodeId n : g.nodes(c))
      if (g.op(n) == op_symbol(OpKind::Scan) && out.size() < limit) {
        out.roots.push_back(g.find(c));
        return;
      }
  }
  std::string to_string() const override { return "(scan ...)"; }

 private:
  egraph::VarLayout layout_;
};

// Which non-sequences a DropNonSequence drops.
enum class Drop {
  Unused,     // the body does not read it
  Constant,   // its value is a small constant: moved into the body
  Duplicate,  // an earlier non-sequence has the same value: the body reads that one
};

// Drops non-sequences of the scans in a class, one per application.
class DropNonSequence final : public egraph::Applier {
 public:
  DropNonSequence(TensorEGraph& g, Drop mode) : g_(g), mode_(mode) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes)
      if (g_.kind(n) == OpKind::Scan) changed |= simplify(eg, root, n);
    return changed;
  }
  std::string to_string() const override {
    return mode_ == Drop::Unused     ? "scan-remove-unused"
           : mode_ == Drop::Constant ? "scan-inline-constants"
                                     : "scan-merge-duplicates";
  }

 private:
  bool simplify(egraph::EGraph& eg, EClassId root, egraph::ENodeId n) {
    const ops::ScanSpec& spec = g_.attrs(n).get<ops::ScanSpec>(ops::AttrKey::Scan);
    const std::vector<EClassId> kids(eg.children(n).begin(), eg.children(n).end());
    const TermRef fn = g_.data(kids[0]).rep;
    if (fn->kind() != OpKind::Fn || spec.num_nonsequences == 0) return false;
    std::int64_t first_slot = spec.num_sitsot;
    for (const auto& taps : spec.sequence_taps)
      first_slot += static_cast<std::int64_t>(taps.size());
    for (const auto& taps : spec.mitsot_taps) first_slot += static_cast<std::int64_t>(taps.size());
    const std::size_t first_operand = kids.size() - static_cast<std::size_t>(spec.num_nonsequences);
    for (std::int64_t j = 0; j < spec.num_nonsequences; ++j) {
      const std::int64_t slot = first_slot + j;
      const EClassId outer = kids[first_operand + static_cast<std::size_t>(j)];
      const bool read = std::ranges::any_of(fn->operands(), [&](TermRef out) {
        return std::ranges::binary_search(out->free_nominals(), slot);
      });
      TermRef value = nullptr;
      if (mode_ == Drop::Unused) {
        if (read) continue;
      } else if (mode_ == Drop::Constant) {
        const TensorData& d = g_.data(outer);
        if (!read || !d.value || d.value->size() > kMaxInlinedElements) continue;
        value = ops::Term::constant(*d.value);
      } else {
        std::int64_t same = -1;
        for (std::int64_t i = 0; i < j && same < 0; ++i)
          if (eg.find(kids[first_operand + static_cast<std::size_t>(i)]) == eg.find(outer))
            same = i;
        if (same < 0) continue;
        const auto& params = fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
        value = ops::Term::nominal(first_slot + same, params[first_slot + same]);
      }
      // The first droppable non-sequence; later ones go in later iterations.
      ops::Attrs attrs = g_.attrs(n);
      ops::ScanSpec smaller = spec;
      --smaller.num_nonsequences;
      attrs.set(ops::AttrKey::Scan, smaller);
      std::vector<EClassId> operands = kids;
      operands.erase(operands.begin() + static_cast<std::ptrdiff_t>(first_operand + j));
      operands[0] = g_.add_term(drop_parameter(fn, slot, value));
      const auto scan = g_.add_op(OpKind::Scan, std::move(attrs), operands);
      return scan && eg.merge(root, *scan);
    }
    return false;
  }

  TensorEGraph& g_;
  Drop mode_;
};

// The first maximal subterm of a body level that reads only the slots in
// [lo, hi) and is an op application (worth computing once).
TermRef invariant_subterm(TermRef t, std::int64_t lo, std::int64_t hi) {
  const auto& free = t->free_nominals();
  if (free.empty()) return nullptr;  // closed: constant-folded, not hoisted
  if (t->kind() != OpKind::Nominal && !t->is_tuple() && free.front() >= lo && free.back() < hi)
    return t;
  for (TermRef o : t->operands())
    if (TermRef found = invariant_subterm(o, lo, hi)) return found;
  return nullptr;
}

// Moves work that reads only non-sequences out of the scans in a class.
class HoistInvariant final : public egraph::Applier {
 public:
  explicit HoistInvariant(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes)
      if (g_.kind(n) == OpKind::Scan) changed |= hoist(eg, root, n);
    return changed;
  }
  std::string to_string() const override { return "scan-hoist-invariants"; }

 private:
  bool hoist(egraph::EGraph& eg, EClassId root, egraph::ENodeId n) {
    const ops::ScanSpec& spec = g_.attrs(n).get<ops::ScanSpec>(ops::AttrKey::Scan);
    const std::vector<EClassId> kids(eg.children(n).begin(), eg.children(n).end());
    const TermRef fn = g_.data(kids[0]).rep;
    if (fn->kind() != OpKind::Fn || spec.num_nonsequences == 0) return false;
    if (!runs_a_step(spec, kids)) return false;
    const auto& params = fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
    const auto nparams = static_cast<std::int64_t>(params.size());
    const std::int64_t lo = nparams - spec.num_nonsequences;
    TermRef target = nullptr;
    for (TermRef out : fn->operands())
      if ((target = invariant_subterm(out, lo, nparams))) break;
    if (!target) return false;
    // The outer value: the subterm with each non-sequence slot bound to its input.
    std::vector<EClassId> args(params.size());
    const std::size_t first_operand = kids.size() - static_cast<std::size_t>(spec.num_nonsequences);
    for (std::int64_t j = 0; j < spec.num_nonsequences; ++j)
      args[lo + j] = kids[first_operand + static_cast<std::size_t>(j)];
    const auto outer = instantiate(g_, target, args);
    if (!outer) return false;
    const ops::TensorType& t = target->tensor_type();
    std::vector<EClassId> operands = kids;
    operands[0] = g_.add_term(replace_in_body(fn, target, ops::Term::nominal(nparams, t), t));
    operands.push_back(*outer);
    ops::Attrs attrs = g_.attrs(n);
    ops::ScanSpec bigger = spec;
    ++bigger.num_nonsequences;
    attrs.set(ops::AttrKey::Scan, bigger);
    const auto scan = g_.add_op(OpKind::Scan, std::move(attrs), operands);
    return scan && eg.merge(root, *scan);
  }

  // True when the loop provably runs at least one step. Hoisted work runs
  // even when the loop runs none, and it can fail (max of an empty axis,
  // an index out of range) where the loop never evaluated it.
  bool runs_a_step(const ops::ScanSpec& spec, const std::vector<EClassId>& kids) const {
    std::size_t k = 1;
    if (spec.has_n_steps) {
      const TensorData& n = g_.data(kids[k++]);
      if (!n.uniform || *n.uniform < 1) return false;
    }
    for (const auto& taps : spec.sequence_taps) {
      const ops::Dims& d = g_.data(kids[k++]).tensor_type().dims;
      if (d.empty() || d[0] == ops::kUnknownDim || d[0] <= taps.back()) return false;
    }
    return true;
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_scan_remove_unused(TensorEGraph& g) {
  return egraph::Rewrite("scan-remove-unused", std::make_shared<ScanSearcher>(),
                         std::make_shared<DropNonSequence>(g, Drop::Unused));
}

egraph::Rewrite make_scan_inline_constants(TensorEGraph& g) {
  return egraph::Rewrite("scan-inline-constants", std::make_shared<ScanSearcher>(),
                         std::make_shared<DropNonSequence>(g, Drop::Constant));
}

egraph::Rewrite make_scan_hoist_invariants(TensorEGraph& g) {
  return egraph::Rewrite("scan-hoist-invariants", std::make_shared<ScanSearcher>(),
                         std::make_shared<HoistInvariant>(g));
}

egraph::Rewrite make_scan_merge_duplicates(TensorEGraph& g) {
  return egraph::Rewrite("scan-merge-duplicates", std::make_shared<ScanSearcher>(),
                         std::make_shared<DropNonSequence>(g, Drop::Duplicate));
}

}  // namespace eqsat::rules
