#include "rules/tensor/inline_calls.hpp"

#include "rules/tensor/op_class_searcher.hpp"
#include "rules/tensor/substitute.hpp"

#include <optional>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;

namespace {

class InlineApplier final : public egraph::Applier {
 public:
  explicit InlineApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    // Copy the node list first: adding e-nodes may reallocate it.
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      if (g_.kind(n) == OpKind::Call) {
        changed |= inline_call(eg, root, n, 0, true);
      } else if (g_.kind(n) == OpKind::Get) {
        const auto index = g_.attrs(n).get<std::int64_t>(ops::AttrKey::Index);
        const EClassId tuple = eg.children(n)[0];
        const std::vector<egraph::ENodeId> calls(eg.nodes(tuple).begin(), eg.nodes(tuple).end());
        for (egraph::ENodeId m : calls)
          if (g_.kind(m) == OpKind::Call) changed |= inline_call(eg, root, m, index, false);
      }
    }
    return changed;
  }
  std::string to_string() const override { return "inline-calls"; }

 private:
  // Merges `root` with output `index` of call `n`'s body on its arguments;
  // `whole` when root is the call itself (single-output defs only).
  bool inline_call(egraph::EGraph& eg, EClassId root, egraph::ENodeId n, std::int64_t index,
                   bool whole) {
    const std::vector<EClassId> kids(eg.children(n).begin(), eg.children(n).end());
    const std::vector<EClassId> outputs = body_outputs(g_, kids[0]);
    if (index >= static_cast<std::int64_t>(outputs.size())) return false;
    if (whole && outputs.size() != 1) return false;  // a tuple: inlined through `get`
    const std::vector<EClassId> args(kids.begin() + 1, kids.end());
    if (!arguments_fit(kids[0], args)) return false;
    const auto body = bind_parameters(g_, kids[0], args)(outputs[static_cast<std::size_t>(index)]);
    if (!body) return false;
    // The arguments may be more precise than the parameters: the body's
    // type then refines the call's; anything else is not the same value.
    const ops::Type& a = g_.type(root);
    const ops::Type& b = g_.type(*body);
    if (a.index() != b.index() || (std::holds_alternative<ops::TensorType>(a) &&
                                   !ops::compatible(std::get<0>(a), std::get<0>(b))))
      return false;
    return eg.merge(root, *body);
  }

  // Whether each argument's static shape is as precise as its parameter's.
  // The body's rules read the parameters' dims (a `dim` folds to one): on a
  // less precise argument they would decide on a shape that only the call
  // checks when it runs, so such a call stays a call.
  bool arguments_fit(EClassId fn, const std::vector<EClassId>& args) const {
    for (egraph::ENodeId n : g_.egraph().nodes(fn)) {
      if (g_.kind(n) != OpKind::Fn) continue;
      const auto& params = g_.attrs(n).get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
      if (params.size() != args.size()) return false;
      for (std::size_t k = 0; k < args.size(); ++k) {
        const ops::Type& t = g_.type(args[k]);
        if (!std::holds_alternative<ops::TensorType>(t)) return false;
        const ops::Dims& got = std::get<ops::TensorType>(t).dims;
        const ops::Dims& want = params[k].dims;
        if (got.size() != want.size()) return false;
        for (std::size_t a = 0; a < want.size(); ++a)
          if (want[a] != ops::kUnknownDim && got[a] != want[a]) return false;
      }
      return true;
    }
    return false;
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_inline_calls(TensorEGraph& g) {
  return egraph::Rewrite("inline-calls",
                         std::make_shared<OpClassSearcher>(
                             std::vector<OpKind>{OpKind::Call, OpKind::Get}, "(call ?f ?args...)"),
                         std::make_shared<InlineApplier>(g));
}

}  // namespace eqsat::rules
