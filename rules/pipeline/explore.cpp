#include "rules/pipeline/explore.hpp"

#include "rules/loops/scan_fusion_extracted.hpp"
#include "rules/tensor/extract_graph.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <unordered_map>

namespace eqsat::rules {

using ast::Use;

namespace {

// `graph`'s inputs and output names over new output terms; the input's
// defs that are still called keep their names.
ops::Graph with_outputs(const ops::Graph& graph, std::span<const ops::TermRef> roots) {
  ops::Graph out;
  out.inputs = graph.inputs;
  for (std::size_t i = 0; i < graph.outputs.size(); ++i)
    out.outputs.push_back({graph.outputs[i].name, roots[i]});
  const auto called = called_bodies(roots);
  for (const auto& d : graph.defs)
    if (std::ranges::find(called, d.term) != called.end()) out.defs.push_back(d);
  return out;
}

// A key equal for graphs that differ only in the operand order of
// commutative ops: each such op's two operands sorted by their own key.
class CommutedKey {
 public:
  ops::TermRef operator()(ops::TermRef t) {
    auto key_of = [&](ops::TermRef u) {
      if (memo_.contains(u)) return;
      std::vector<ops::TermRef> kids;
      for (ops::TermRef o : u->operands()) kids.push_back(memo_.at(o));
      if (ops::is_commutative(u->kind()) && kids.size() == 2 && kids[1]->id() < kids[0]->id())
        std::swap(kids[0], kids[1]);
      const ops::TermRef key =
          kids == std::vector<ops::TermRef>(u->operands().begin(), u->operands().end())
              ? u
              : ops::Term::make(u->kind(), u->attrs(), std::move(kids));
      memo_.emplace(u, key);
    };
    ops::for_each_post_order(t, ops::Bodies::Enter, key_of,
                             [&](ops::TermRef u) { return !memo_.contains(u); });
    return memo_.at(t);
  }

 private:
  std::unordered_map<ops::TermRef, ops::TermRef> memo_;
};

}  // namespace

std::vector<Alternative> explore(const ops::Graph& graph, const RuleProgram& rules,
                                 std::size_t count, OptimizeReport* report,
                                 OptimizeOptions options) {
  const backend::CostModel model(options.weights);
  const bool fuse =
      std::ranges::any_of(rules.uses(), [](const Use& u) { return u.applier == "scan-fusion"; });
  const auto outputs_of = [](const ops::Graph& g) {
    std::vector<ops::TermRef> roots;
    for (const auto& o : g.outputs) roots.push_back(o.term);
    return roots;
  };
  // Each candidate's roots and its unstable terms, counted as optimize
  // counts them: a stable form always wins (docs/architecture.md decision
  // 11) in every ranking, so rank 1 is what optimize prints.
  std::vector<std::pair<std::vector<ops::TermRef>, std::size_t>> found;
  std::size_t input_unstable = 0;
  auto hook = options.saturated;
  options.saturated = [&](TensorEGraph& g, std::span<const egraph::EClassId> roots) {
    if (hook) hook(g, roots);
    for (ExtractedTerms& x : extract_alternative_terms(
             g, roots, model, count,
             [](const TensorEGraph&t, egraph::ENodeId n) { return t.unstable(n); })) {
      const std::size_t unstable = count_unstable(g, x.roots);
      found.emplace_back(fuse ? fuse_extracted_loops(x.roots, model) : std::move(x.roots),
                         unstable);
    }
    input_unstable = count_unstable(g, outputs_of(graph));
  };
  OptimizeReport local;
  OptimizeReport& r = report ? *report : local;
  const ops::Graph best = optimize(graph, rules, &r, options);

  // What optimize prints comes first among equals, the input graph last.
  found.insert(found.begin(), std::pair(outputs_of(best), r.unstable_after));
  found.emplace_back(outputs_of(graph), input_unstable);
  std::vector<Alternative> out;
  std::vector<std::vector<ops::TermRef>> kept;
  CommutedKey key;
  for (const auto& [roots, unstable] : found) {
    std::vector<ops::TermRef> k;
    for (ops::TermRef t : roots) k.push_back(key(t));
    if (std::ranges::find(kept, k) != kept.end()) continue;
    kept.push_back(std::move(k));
    out.push_back({with_outputs(graph, roots),
                   dag_cost(roots, model) + kUnstableCost * static_cast<double>(unstable)});
  }
  std::ranges::stable_sort(out, {}, &Alternative::cost);
  if (out.size() > count) out.resize(count);
  return out;
}

}  // namespace eqsat::rules
