#include "scan_rewrites.hpp"

#include "op_symbols.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;
using ops::TermRef;

namespace {

inline constexpr std::int64_t kMaxInlinedElements = 64;

class Renumber {
 public:
  Renumber(std::int64_t slot, TermRef value) : slot_(slot), value_(value) {}

  TermRef operator()(TermRef t) {
    if (t->free_nominals().empty()) return t;  // closed, nested bodies included
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out;
    if (t->kind() == OpKind::Nominal) {
      const auto s = t->attrs().get<std::int64_t>(ops::AttrKey::Slot);
      if (s == slot_) {
        if (!value_) throw std::logic_error("drop_parameter: the body reads the dropped slot");
        out = value_;
      } else {
        out = s < slot_ ? t : ops::Term::nominal(s - 1, t->tensor_type());
      }
    } else {
      std::vector<TermRef> kids;
      for (TermRef o : t->operands()) kids.push_back((*this)(o));
      out = ops::Term::make(t->kind(), t->attrs(), std::move(kids));
    }
    memo_.emplace(t, out);
    return out;
  }

 private:
  std::int64_t slot_;
  TermRef value_;
  std::unordered_map<TermRef, TermRef> memo_;
};

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

}  // namespace

TermRef drop_parameter(TermRef fn, std::int64_t slot, TermRef value) {
  auto params = fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
  params.erase(params.begin() + slot);
  std::vector<TermRef> outputs;
  Renumber renumber(slot, value);
  for (TermRef o : fn->operands()) outputs.push_back(renumber(o));
  return ops::Term::fn(std::move(params), std::move(outputs));
}

egraph::Rewrite make_scan_remove_unused(TensorEGraph& g) {
  return egraph::Rewrite("scan-remove-unused", std::make_shared<ScanSearcher>(),
                         std::make_shared<DropNonSequence>(g, Drop::Unused));
}

egraph::Rewrite make_scan_inline_constants(TensorEGraph& g) {
  return egraph::Rewrite("scan-inline-constants", std::make_shared<ScanSearcher>(),
                         std::make_shared<DropNonSequence>(g, Drop::Constant));
}

egraph::Rewrite make_scan_merge_duplicates(TensorEGraph& g) {
  return egraph::Rewrite("scan-merge-duplicates", std::make_shared<ScanSearcher>(),
                         std::make_shared<DropNonSequence>(g, Drop::Duplicate));
}

}  // namespace eqsat::rules
