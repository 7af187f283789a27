#include "rules/autodiff/expand_gradients.hpp"

#include "rules/autodiff/gradient.hpp"
#include "rules/tensor/extract_graph.hpp"
#include "rules/tensor/op_symbols.hpp"

#include "ops/post_order.hpp"
#include "ops/type_error.hpp"
#include "rules/autodiff/pullback.hpp"

#include <map>
#include <memory>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;

namespace {

// The best COST and WRT terms of one grad e-node, or why they are missing.
struct GradJob {
  EClassId cost, wrt;
  ops::TermRef cost_term = nullptr, wrt_term = nullptr;
  bool waits = false;           // the cost holds a grad not yet expanded
  std::int64_t checkpoint = 0;  // the grad's :checkpoint
};

// What the searcher found at the last search, read by the applier.
struct Found {
  std::map<EClassId, std::vector<GradJob>> jobs;  // by the grad's class at search time
  bool progress = false;                          // some job does not wait
};

class GradSearcher final : public egraph::Searcher {
 public:
  GradSearcher(const TensorEGraph& g, std::shared_ptr<Found> found) : g_(g), found_(found) {}
  const egraph::VarLayout& layout() const override { return layout_; }
  void search(const egraph::EGraph& eg, egraph::Matches& out, std::size_t limit) const override {
    out.layout = &layout_;
    found_->jobs.clear();
    if (!eg.clean()) return;  // extraction needs a clean e-graph: run in a phase of its own
    for (EClassId c : eg.classes_with_op(op_symbol(OpKind::Grad))) {
      if (out.size() >= limit) break;
      collect(eg, c, out);
    }
    extract();
  }
  void search_eclass(const egraph::EGraph& eg, EClassId c, egraph::Matches& out,
                     std::size_t limit) const override {
    out.layout = &layout_;
    found_->jobs.clear();
    if (eg.clean() && out.size() < limit) collect(eg, c, out);
    extract();
  }
  std::string to_string() const override { return "(grad ?cost ?wrt)"; }

 private:
  void collect(const egraph::EGraph& eg, EClassId c, egraph::Matches& out) const {
    c = eg.find(c);
    // A class that also holds another e-node has been expanded (or proven
    // equal to a value) already: extraction never picks its grad.
    for (egraph::ENodeId n : eg.nodes(c))
      if (op_of_symbol(eg.op(n)) != OpKind::Grad) return;
    for (egraph::ENodeId n : eg.nodes(c))
      if (op_of_symbol(eg.op(n)) == OpKind::Grad) {
        const auto kids = eg.children(n);
        auto& jobs = found_->jobs[c];
        if (jobs.empty()) out.roots.push_back(c);
        GradJob job{eg.find(kids[0]), eg.find(kids[1])};
        job.checkpoint = g_.attrs(n).get_or<std::int64_t>(ops::AttrKey::Checkpoint, 0);
        jobs.push_back(job);
      }
  }
  // The cheapest COST and WRT terms of every job, extracted together.
  void extract() const {
    std::vector<EClassId> roots;
    for (auto& [c, jobs] : found_->jobs)
      for (auto& j : jobs) roots.insert(roots.end(), {j.cost, j.wrt});
    if (roots.empty()) return;
    ExtractedTerms best;
    try {
      best = extract_terms(g_, roots, backend::CostModel());
    } catch (const egraph::ExtractionError&) {
      return;  // no acyclic term: the applier refuses these grads
    }
    std::size_t k = 0;
    bool any_ready = false;
    for (auto& [c, jobs] : found_->jobs)
      for (auto& j : jobs) {
        j.cost_term = best.roots[k++];
        j.wrt_term = best.roots[k++];
        j.waits = contains_grad(j.cost_term);
        any_ready = any_ready || !j.waits;
      }
    // Innermost first: a cost that still holds a grad waits for the next
    // iteration, unless no grad can be expanded now (then it is refused).
    found_->progress = any_ready;
  }
  static bool contains_grad(ops::TermRef t) {
    bool found = false;
    auto reach = [&](ops::TermRef u) {  // stops entering terms once a grad is found
      found = found || u->kind() == OpKind::Grad;
      return !found;
    };
    ops::for_each_post_order(
        t, ops::Bodies::Enter, [](ops::TermRef) {}, reach);
    return found;
  }

  const TensorEGraph& g_;
  std::shared_ptr<Found> found_;
  egraph::VarLayout layout_;
};

class GradApplier final : public egraph::Applier, public RefusingApplier {
 public:
  GradApplier(TensorEGraph& g, std::shared_ptr<Found> found) : g_(g), found_(found) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    const auto it = found_->jobs.find(root);
    if (it == found_->jobs.end()) return false;
    bool changed = false;
    for (const GradJob& j : it->second) changed |= expand(eg, root, j);
    return changed;
  }
  std::string to_string() const override { return "expand-gradients"; }
  std::size_t refused() const override { return errors_.size(); }
  const std::vector<std::string>& errors() const override { return errors_; }

 private:
  bool expand(egraph::EGraph& eg, EClassId root, const GradJob& j) {
    if (!j.cost_term) return refuse("grad: the cost has no term to differentiate");
    if (j.waits) {
      if (found_->progress) return false;
      return refuse("grad: the cost holds a grad that cannot be expanded");
    }
    ops::TermRef dx = nullptr;
    try {
      dx = gradient(j.cost_term, j.wrt_term, {.checkpoint = j.checkpoint});
    } catch (const ops::PullbackError& e) {
      return refuse(e.what());
    } catch (const ops::TypeError& e) {
      return refuse(std::string("grad: a pullback is ill-typed: ") + e.what());
    }
    const ops::Type& want = g_.type(root);
    if (dx->is_tuple() || !std::holds_alternative<ops::TensorType>(want) ||
        !ops::compatible(dx->tensor_type(), std::get<ops::TensorType>(want)))
      return refuse("grad: the gradient's type differs from the grad's (" +
                    ops::to_string(dx->type()) + " vs " + ops::to_string(want) + ")");
    EClassId d = g_.add_term(dx);
    if (drops_check(g_, root, d)) d = g_.add_term(with_cost_checked(dx, j.cost_term));
    return eg.merge(eg.find(root), d);
  }
  // The written gradient fails where its cost does (the forward pass
  // computes it), but a gradient may not read the failing part (the
  // derivative of x + y[k] by x is 1): `(where true dx cost)` is dx and
  // still computes the cost, so the check stays (issue 25).
  static ops::TermRef with_cost_checked(ops::TermRef dx, ops::TermRef cost) {
    const ops::DType dtype = dx->tensor_type().dtype;
    if (cost->tensor_type().dtype != dtype)
      cost = ops::Term::make(OpKind::Cast, {{ops::AttrKey::Dtype, dtype}}, {cost});
    return ops::Term::make(OpKind::Where, {}, {ops::Term::scalar(ops::DType::Bool, 1), dx, cost});
  }
  bool refuse(std::string message) {
    errors_.push_back(std::move(message));
    return false;
  }

  TensorEGraph& g_;
  std::shared_ptr<Found> found_;
  std::vector<std::string> errors_;
};

}  // namespace

egraph::Rewrite make_expand_gradients(TensorEGraph& g) {
  auto found = std::make_shared<Found>();
  return egraph::Rewrite("expand-gradients", std::make_shared<GradSearcher>(g, found),
                         std::make_shared<GradApplier>(g, found));
}

}  // namespace eqsat::rules
