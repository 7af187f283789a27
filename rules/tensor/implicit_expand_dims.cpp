#include "rules/tensor/implicit_expand_dims.hpp"

#include "rules/tensor/op_class_searcher.hpp"
#include "rules/tensor/op_symbols.hpp"

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include <algorithm>

namespace eqsat::rules {

using egraph::EClassId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// The broadcasting elementwise ops: those of two or more operands.
std::vector<OpKind> broadcasting_ops() {
  std::vector<OpKind> kinds;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (ops::is_elementwise(kind) && ops::op_info(kind).max_arity >= 2) kinds.push_back(kind);
  }
  return kinds;
}

// For each broadcasting e-node of the matched class, each operand whose
// class holds `expand_dims(x, 0)` where another operand has at least the
// operand's rank: the e-node with x in its place joins the class.
class ImplicitExpandDimsApplier final : public egraph::Applier {
 public:
  explicit ImplicitExpandDimsApplier(TensorEGraph& g)
      : g_(g), expand_dims_(op_symbol(OpKind::ExpandDims)) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    // Lists held inline: this runs for every broadcasting class in every
    // iteration (its allocations were 2% of a large merge).
    bool changed = false;
    const absl::InlinedVector<egraph::ENodeId, 8> nodes(eg.nodes(root).begin(),
                                                        eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      if (!ops::is_elementwise(g_.kind(n))) continue;
      const ops::OpKind kind = g_.kind(n);
      const absl::InlinedVector<EClassId, 4> kids(eg.children(n).begin(), eg.children(n).end());
      // Most classes hold no `expand_dims` operand: look for one before the ranks.
      absl::InlinedVector<absl::InlinedVector<EClassId, 4>, 4> lifts;
      bool any = false;
      for (EClassId k : kids) {
        lifts.push_back(leading_new_axis_operands(eg, k));
        any |= !lifts.back().empty();
      }
      if (!any) continue;
      const ops::Attrs attrs = g_.attrs(n);
      absl::InlinedVector<int, 4> ranks;
      for (EClassId k : kids) {
        if (!g_.data(k).is_tensor()) return changed;
        ranks.push_back(g_.data(k).tensor_type().rank());
      }
      for (std::size_t i = 0; i < kids.size(); ++i) {
        bool covered = false;  // another operand has operand i's rank or more
        for (std::size_t j = 0; j < kids.size(); ++j) covered |= j != i && ranks[j] >= ranks[i];
        if (!covered) continue;
        for (EClassId x : lifts[i]) {
          absl::InlinedVector<EClassId, 4> lifted = kids;
          lifted[i] = x;
          const auto c = g_.add_op(kind, attrs, lifted);
          if (c && g_.type(*c) == g_.type(root)) changed |= eg.merge(root, *c);
        }
      }
    }
    return changed;
  }
  std::string to_string() const override { return "implicit-expand-dims"; }

 private:
  using Operands = absl::InlinedVector<EClassId, 4>;

  // The x of each `expand_dims(x, :axis 0)` in class c. An operand class is
  // read for every broadcasting e-node above it, and may hold thousands of
  // forms (a loop index's arithmetic, in a loop's gradient), which made this
  // rule most of such an optimization's time: a class's answer is kept
  // until its e-node list changes. Between two rebuilds a list only grows at
  // its end (merges, new e-nodes) or loses e-nodes (pruning), and none comes
  // back, so the same length and last e-node mean the same list.
  const Operands& leading_new_axis_operands(const egraph::EGraph& eg, EClassId c) {
    if (read_in_ != eg.snapshot_number()) {
      read_.clear();
      read_in_ = eg.snapshot_number();
    }
    const std::span<const egraph::ENodeId> nodes = eg.nodes(c);
    const egraph::ENodeId last = nodes.empty() ? egraph::ENodeId() : nodes.back();
    Read& r = read_[eg.find(c).value()];
    if (r.size == nodes.size() && r.last == last) return r.xs;  // an empty class: none
    r = {nodes.size(), last, {}};
    for (egraph::ENodeId m : nodes)
      if (eg.op(m) == expand_dims_ && g_.attrs(m).get<std::int64_t>(AttrKey::Axis) == 0)
        r.xs.push_back(eg.children(m)[0]);
    return r.xs;
  }

  TensorEGraph& g_;
  // leading_new_axis_operands' answers in snapshot read_in_, by class: the
  // class's e-node count and last e-node when read.
  struct Read {
    std::size_t size = 0;
    egraph::ENodeId last;
    Operands xs;
  };
  absl::flat_hash_map<std::uint32_t, Read> read_;
  std::uint32_t read_in_ = ~0u;
  egraph::Symbol expand_dims_;
};

}  // namespace

egraph::Rewrite make_implicit_expand_dims(TensorEGraph& g) {
  return egraph::Rewrite(
      "implicit-expand-dims",
      std::make_shared<OpClassSearcher>(broadcasting_ops(), "(OP (expand_dims ?x :axis 0) ?y)",
                                        std::vector<OpKind>{OpKind::ExpandDims}),
      std::make_shared<ImplicitExpandDimsApplier>(g));
}

}  // namespace eqsat::rules
