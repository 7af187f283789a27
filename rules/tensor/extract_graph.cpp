#include "rules/tensor/extract_graph.hpp"

#include "egraph/extract/alternatives.hpp"
#include "egraph/extract/dag_cost.hpp"
#include "egraph/extract/from_egraph.hpp"
#include "egraph/extract/shared_choice.hpp"
#include "ops/post_order.hpp"
#include "support/internal_error.hpp"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ProblemClassId;

double node_cost(ops::OpKind kind, std::span<const ops::Type> operand_types,
                 const ops::Type& result, const backend::CostModel& model,
                 std::optional<std::int64_t> trips, const ops::ScanSpec* spec) {
  if (kind == ops::OpKind::Grad) return kGradCost;
  double c = kind == ops::OpKind::Scan && trips && spec
                 ? model.scan_cost(*trips, *spec, result, operand_types)
                 : model.op_cost(kind, operand_types, result);
  if (kind == ops::OpKind::Scan || kind == ops::OpKind::Call)
    c += kSlotCost * static_cast<double>(operand_types.size());
  return std::isfinite(c) ? c : kGradCost;
}

namespace {

constexpr double kRunCap = 1e9;

// The steps each scan e-node runs, as the cost model estimates them: read
// once per e-node, its :n-steps class's bounds once per class, and the
// floor each operand class of that class's `minimum` forms gives once per
// operand class. Extraction prices each scan e-node many times, and a
// loop's second derivative made :n-steps classes of thousands of
// `minimum` forms over shared operand classes of thousands of forms each:
// read afresh each time, they took 86 of an optimization's 87 seconds
// (bench/README.md, "Speed round 18").
class ScanTrips {
 public:
  ScanTrips(const TensorEGraph& g, const backend::CostModel& model)
      : g_(&g),
        model_(&model),
        trips_(g.egraph().num_node_ids(), kUnread),
        bounds_(g.egraph().num_class_ids()),
        floors_(g.egraph().num_class_ids()) {}

  // For the e-graph as it was when the ScanTrips was made.
  std::int64_t operator()(egraph::ENodeId n) {
    EQSAT_ASSERT(n.index() < trips_.size())
        << "ScanTrips: e-node " << n.value() << " was added after the trip counts were made";
    std::int64_t& t = trips_[n.index()];
    if (t == kUnread) t = read(n);
    return t;
  }

 private:
  static constexpr std::int64_t kUnread = std::numeric_limits<std::int64_t>::min();

  std::int64_t read(egraph::ENodeId n) {
    const TensorEGraph& g = *g_;
    const egraph::EGraph& eg = g.egraph();
    const auto& spec = g.attrs(n).get<ops::ScanSpec>(ops::AttrKey::Scan);
    std::vector<ops::Type> types;
    for (EClassId k : eg.children(n)) types.push_back(g.type(k));
    backend::StepBounds n_steps;
    if (spec.has_n_steps) n_steps = steps_of(eg.children(n)[1]);
    return model_->trip_count(spec, types, g.type(eg.class_of(n)), n_steps);
  }

  // What :n-steps class `c` gives away, read once.
  const backend::StepBounds& steps_of(EClassId c) {
    const TensorEGraph& g = *g_;
    const egraph::EGraph& eg = g.egraph();
    std::optional<backend::StepBounds>& b = bounds_[eg.find(c).index()];
    if (b) return *b;
    // :n-steps is an integer scalar: a known value is exact in a double.
    const auto constant = [&](EClassId k) -> std::optional<std::int64_t> {
      if (const auto& u = g.data(k).uniform) return static_cast<std::int64_t>(*u);
      return std::nullopt;
    };
    const auto forms = [&](EClassId k, const auto& f) {
      for (egraph::ENodeId m : eg.nodes(k)) f(g.kind(m), eg.children(m));
    };
    const auto floor = [&](EClassId k) {
      std::optional<std::optional<std::int64_t>>& f = floors_[eg.find(k).index()];
      if (!f) f = backend::StepBounds::largest_floor(k, constant, forms);
      return *f;
    };
    b = backend::StepBounds::read(c, constant, forms, floor);
    return *b;
  }

  const TensorEGraph* g_;
  const backend::CostModel* model_;
  std::vector<std::int64_t> trips_;                         // by e-node id; kUnread until read
  std::vector<std::optional<backend::StepBounds>> bounds_;  // by class id
  // StepBounds::largest_floor of each class, once read, by class id.
  std::vector<std::optional<std::optional<std::int64_t>>> floors_;
};

// How many times each class is expected to run, by class id (0: not reached
// from the roots): 1 outside loops, times a scan's trip count inside its body
// (nested scans multiply). A class takes the largest count over the ways
// roots reach it. Capped, so it terminates.
std::vector<double> run_counts(const TensorEGraph& g, std::span<const EClassId> roots,
                               ScanTrips& scan_trips) {
  const egraph::EGraph& eg = g.egraph();
  std::vector<double> count(eg.num_class_ids(), 0.0);
  std::vector<EClassId> work;
  auto reach = [&](EClassId c, double m) {
    c = eg.find(c);
    m = std::min(m, kRunCap);
    if (count[c.index()] >= m) return;
    count[c.index()] = m;
    work.push_back(c);
  };
  for (EClassId r : roots) reach(r, 1);
  while (!work.empty()) {
    const EClassId c = work.back();
    work.pop_back();
    const double m = count[c.index()];
    for (egraph::ENodeId n : eg.nodes(c)) {
      const auto kids = eg.children(n);
      for (std::size_t i = 0; i < kids.size(); ++i) {
        const bool body = g.kind(n) == ops::OpKind::Scan && i == 0;
        reach(kids[i], body ? m * static_cast<double>(scan_trips(n)) : m);
      }
    }
  }
  return count;
}

}  // namespace

namespace {

// The executor fuses chains of elementwise ops into one pass (backend/
// kernel_groups.hpp), so extraction prices each e-node of such a chain as
// its share of the group (CostModel::fused_op_cost). Which forms the
// extraction will pick is not known while it prices them, so the groups are
// read off the e-graph: a class is computed inside a group when it has an
// elementwise form that fuses, and written to memory (`materialized`) when
// it is a root or some e-node reads it other than as a fused operand
// (CostModel::reads_fused: of the reader's shape and compute dtype, or the
// operand of a reduction that absorbs its group).
struct FusedClasses {
  std::vector<bool> fused_form, materialized;  // by class id

  FusedClasses(const TensorEGraph& g, std::span<const EClassId> roots,
               const backend::CostModel& model) {
    const egraph::EGraph& eg = g.egraph();
    fused_form.assign(eg.num_class_ids(), false);
    materialized.assign(eg.num_class_ids(), false);
    for (EClassId r : roots) materialized[eg.find(r).index()] = true;
    std::vector<ops::Type> types;
    for (EClassId c : eg.classes())
      for (egraph::ENodeId n : eg.nodes(c)) {
        const auto kids = eg.children(n);
        types.resize(kids.size());
        for (std::size_t i = 0; i < kids.size(); ++i) types[i] = g.type(kids[i]);
        const auto role = model.fused_role(g.kind(n), g.attrs(n), types, g.type(c));
        if (role && !role->reduction) fused_form[c.index()] = true;
        for (std::size_t i = 0; i < kids.size(); ++i)
          if (!role || !backend::CostModel::reads_fused(*role, i, types[i], g.type(c)))
            materialized[eg.find(kids[i]).index()] = true;
      }
  }
};

}  // namespace

egraph::ENodeCost extraction_cost(const TensorEGraph& g, std::span<const EClassId> roots,
                                  const backend::CostModel& model) {
  ScanTrips scan_trips(g, model);
  std::vector<double> runs = run_counts(g, roots, scan_trips);
  return [&g, &model, scan_trips = std::move(scan_trips), runs = std::move(runs),
          fused = FusedClasses(g, roots, model),
          types = std::vector<ops::Type>{}](const egraph::EGraph& eg, egraph::ENodeId n) mutable {
    const auto kids = eg.children(n);
    types.resize(kids.size());  // assigned, not rebuilt: their dims keep their storage
    for (std::size_t i = 0; i < kids.size(); ++i) types[i] = g.type(kids[i]);
    const EClassId c = eg.class_of(n);
    const double times = std::max(1.0, runs[c.index()]);
    std::optional<std::int64_t> trips;
    const ops::ScanSpec* spec = nullptr;
    if (g.kind(n) == ops::OpKind::Scan) {
      trips = scan_trips(n);
      spec = &g.attrs(n).get<ops::ScanSpec>(ops::AttrKey::Scan);
    }
    double one = 0;
    if (const auto role = model.fused_role(g.kind(n), g.attrs(n), types, g.type(c))) {
      std::uint32_t fused_operands = 0;
      for (std::size_t i = 0; i < kids.size(); ++i)
        if (fused.fused_form[eg.find(kids[i]).index()] &&
            backend::CostModel::reads_fused(*role, i, types[i], g.type(c)))
          fused_operands |= 1u << i;
      one = model.fused_op_cost(g.kind(n), types, g.type(c), fused_operands,
                                role->reduction || fused.materialized[c.index()]);
    } else {
      one = node_cost(g.kind(n), types, g.type(c), model, trips, spec);
    }
    const double cost = std::min(kGradCost, times * one);
    return g.unstable(n) ? cost + kUnstableCost : cost;  // docs/architecture.md decision 11
  };
}

namespace {

// The extraction problem of `roots`; the e-nodes in `free` (when given)
// cost nothing.
egraph::EGraphProblem problem_for(const TensorEGraph& g, std::span<const EClassId> roots,
                                  const backend::CostModel& model, const ForbiddenENode& forbidden,
                                  const absl::flat_hash_set<egraph::ENodeId>* free = nullptr) {
  egraph::ENodeCost cost = extraction_cost(g, roots, model);
  if (free)
    cost = [free, cost = std::move(cost)](const egraph::EGraph& eg, egraph::ENodeId n) mutable {
      return free->contains(n) ? 0.0 : cost(eg, n);
    };
  return egraph::to_extraction_problem(
      g.egraph(), roots, std::move(cost), [&](const egraph::EGraph&, egraph::ENodeId n) {
        return reads_out_of_scope(g, n) || (forbidden && forbidden(g, n));
      });
}

// The classes share_candidates tries as producers of all their readers:
// loops and multi-output calls (read through `get`s), and their outputs
// (one loop's whole output can serve a reader of its last step that
// another loop serves now).
std::vector<ProblemClassId> producer_classes(const TensorEGraph& g,
                                             const egraph::EGraphProblem& problem) {
  const egraph::ExtractionProblem& p = problem.problem;
  std::vector<bool> producer(p.num_classes(), false);
  for (std::uint32_t c = 0; c < p.num_classes(); ++c)
    producer[c] = std::holds_alternative<ops::TupleType>(g.type(problem.eclass[c]));
  for (std::uint32_t n = 0; n < p.num_nodes(); ++n) {
    if (g.kind(problem.enode[n]) == ops::OpKind::Get)
      producer[p.node(egraph::ProblemNodeId{n}).eclass.value] = true;
  }
  std::vector<ProblemClassId> out;
  for (std::uint32_t c = 0; c < p.num_classes(); ++c)
    if (producer[c]) out.push_back(ProblemClassId{c});
  return out;
}

}  // namespace

egraph::Extraction extract_choice(const TensorEGraph& g, const egraph::EGraphProblem& problem,
                                  egraph::ExtractorKind kind) {
  return egraph::share_candidates(problem.problem, egraph::extract(problem.problem, kind),
                                  producer_classes(g, problem));
}

namespace {

// The terms an extraction chose for `roots`.
ExtractedTerms terms_of(const TensorEGraph& g, std::span<const EClassId> roots,
                        const egraph::EGraphProblem& problem, const egraph::Extraction& x) {
  const egraph::EGraph& eg = g.egraph();
  // Terms in the extraction's order: children before parents.
  std::vector<ops::TermRef> term_of(problem.problem.num_classes(), nullptr);
  std::vector<ops::TermRef> operands;
  for (ProblemClassId pc : x.order) {
    const egraph::ProblemNodeId pn = *x.choices[pc.value];
    const egraph::ENodeId n = problem.enode[pn.value];
    operands.clear();
    for (ProblemClassId k : problem.problem.node(pn).children) operands.push_back(term_of[k.value]);
    term_of[pc.value] = ops::Term::make(g.kind(n), g.attrs(n), std::move(operands));
  }
  ExtractedTerms out;
  out.cost = x.dag_cost;
  for (EClassId r : roots) out.roots.push_back(term_of[problem.class_of(eg.find(r)).value]);
  return out;
}

}  // namespace

bool reads_out_of_scope(const TensorEGraph& g, egraph::ENodeId n) {
  if (g.kind(n) == ops::OpKind::Fn) return false;  // a body binds its parameters
  const TensorData& mine = g.data(g.egraph().class_of(n));
  // A class's representative reads a graph input only when every form does.
  const bool closed = !mine.rep->uses_input();
  return std::ranges::any_of(g.egraph().children(n), [&](EClassId k) {
    const TensorData& child = g.data(k);
    return !std::ranges::includes(mine.free_nominals, child.free_nominals) ||
           (closed && child.rep->uses_input());
  });
}

namespace {

// An output is computed anyway, so another output may read what it computes
// for free: the first pass prices each class alone, and picks a new
// softmax x for an output beside the output log_softmax x where exp of it
// would do. So, when some root's class has a form that reads another
// root's class, for each root in turn extraction runs again with the other
// roots held to their choices at no cost; a result whose real DAG cost is
// lower is kept. Up to kMaxReuseRoots roots (one extraction each).
constexpr std::size_t kMaxReuseRoots = 16;

egraph::Extraction reusing_outputs(const TensorEGraph& g, std::span<const EClassId> roots,
                                   const backend::CostModel& model, egraph::ExtractorKind kind,
                                   const ForbiddenENode& forbidden,
                                   const egraph::EGraphProblem& problem, egraph::Extraction x) {
  const egraph::EGraph& eg = g.egraph();
  // Only where a root's class has a form reading another root's class.
  absl::flat_hash_set<EClassId> root_classes;
  for (EClassId r : roots) root_classes.insert(eg.find(r));
  const bool reads_root = std::ranges::any_of(root_classes, [&](EClassId c) {
    return std::ranges::any_of(eg.nodes(c), [&](egraph::ENodeId n) {
      return std::ranges::any_of(eg.children(n), [&](EClassId k) {
        return eg.find(k) != c && root_classes.contains(eg.find(k));
      });
    });
  });
  if (!reads_root) return x;
  egraph::DagCost cost(problem.problem);
  std::optional<double> best = cost(x.choices);
  for (std::size_t i = 0; i < roots.size() && best; ++i) {
    const EClassId mine = eg.find(roots[i]);
    absl::flat_hash_set<egraph::ENodeId> held;  // the other roots' chosen e-nodes
    absl::flat_hash_set<EClassId> held_classes;
    for (EClassId r : roots) {
      const EClassId c = eg.find(r);
      if (c == mine) continue;
      if (const auto n = x.choices[problem.class_of(c).value]) {
        held.insert(problem.enode[n->value]);
        held_classes.insert(c);
      }
    }
    if (held.empty()) continue;
    const ForbiddenENode others = [&](const TensorEGraph& t, egraph::ENodeId n) {
      return (held_classes.contains(t.egraph().class_of(n)) && !held.contains(n)) ||
             (forbidden && forbidden(t, n));
    };
    const egraph::EGraphProblem second = problem_for(g, roots, model, others, &held);
    egraph::Extraction y = extract_choice(g, second, kind);
    const std::optional<double> after = cost(y.choices);
    if (!after || *after >= *best) continue;
    best = after;
    y.dag_cost = *after;
    x = std::move(y);
  }
  return x;
}

}  // namespace

ExtractedTerms extract_terms(const TensorEGraph& g, std::span<const EClassId> roots,
                             const backend::CostModel& model, egraph::ExtractorKind kind,
                             const ForbiddenENode& forbidden) {
  const egraph::EGraphProblem problem = problem_for(g, roots, model, forbidden);
  egraph::Extraction x = extract_choice(g, problem, kind);
  if (roots.size() > 1 && roots.size() <= kMaxReuseRoots)
    x = reusing_outputs(g, roots, model, kind, forbidden, problem, std::move(x));
  return terms_of(g, roots, problem, x);
}

std::vector<ExtractedTerms> extract_alternative_terms(const TensorEGraph& g,
                                                      std::span<const EClassId> roots,
                                                      const backend::CostModel& model,
                                                      std::size_t count,
                                                      const ForbiddenENode& forbidden) {
  // `(add b a)` beside `(add a b)` in one class is the same program: only
  // the form with the operand classes in id order is offered.
  const auto commuted_twin = [](const TensorEGraph& t, egraph::ENodeId n) {
    const egraph::EGraph& eg = t.egraph();
    const auto kids = eg.children(n);
    if (!ops::is_commutative(t.kind(n)) || kids.size() != 2 || !(kids[1] < kids[0])) return false;
    return std::ranges::any_of(eg.nodes(eg.class_of(n)), [&](egraph::ENodeId m) {
      const auto other = eg.children(m);
      return m != n && eg.op(m) == eg.op(n) && eg.payload(m) == eg.payload(n) &&
             other.size() == 2 && other[0] == kids[1] && other[1] == kids[0];
    });
  };
  const egraph::EGraphProblem problem =
      problem_for(g, roots, model, [&](const TensorEGraph& t, egraph::ENodeId n) {
        return commuted_twin(t, n) || (forbidden && forbidden(t, n));
      });
  const egraph::Extraction best = extract_choice(g, problem, egraph::ExtractorKind::GreedyDag);
  std::vector<ExtractedTerms> out;
  for (const egraph::Extraction& x :
       egraph::extract_alternatives(problem.problem, best, {.count = count}))
    out.push_back(terms_of(g, roots, problem, x));
  return out;
}

double dag_cost(std::span<const ops::TermRef> roots, const backend::CostModel& model) {
  // Run counts as for e-classes: largest over the paths from the roots.
  absl::flat_hash_map<ops::TermRef, double> count;
  std::vector<ops::TermRef> work;
  auto reach = [&](ops::TermRef t, double m) {
    m = std::min(m, kRunCap);
    auto [it, fresh] = count.emplace(t, m);
    if (!fresh && it->second >= m) return;
    it->second = m;
    work.push_back(t);
  };
  for (ops::TermRef r : roots) reach(r, 1);
  while (!work.empty()) {
    const ops::TermRef t = work.back();
    work.pop_back();
    const double m = count.at(t);
    for (std::size_t i = 0; i < t->arity(); ++i) {
      const bool body = t->kind() == ops::OpKind::Scan && i == 0;
      reach(t->operand(i), body ? m * static_cast<double>(model.trip_count(t)) : m);
    }
  }
  // Summed in id order (a fixed order); each id is read once, not at every
  // comparison of the sort.
  struct Counted {
    std::uint64_t id;
    ops::TermRef term;
    double times;
  };
  std::vector<Counted> order;
  order.reserve(count.size());
  for (const auto& [t, times] : count) order.push_back({t->id(), t, times});
  std::ranges::sort(order, {}, &Counted::id);
  // Fused groups as extraction_cost reads them off the e-graph: a term is
  // written to memory when it is a root or read other than as a fused
  // operand (CostModel::reads_fused). role_of: a term's operand types, and
  // its role in a fused group.
  const auto role_of = [&model](ops::TermRef t, std::vector<ops::Type>& types) {
    types.resize(t->arity());  // assigned, not rebuilt: their dims keep their storage
    for (std::size_t i = 0; i < t->arity(); ++i) types[i] = t->operand(i)->type();
    return model.fused_role(t->kind(), t->attrs(), types, t->type());
  };
  std::vector<ops::Type> types, operand_types;
  // A term computed inside a group: an elementwise op that fuses.
  const auto in_group = [&](ops::TermRef t) {
    const auto role = role_of(t, operand_types);
    return role && !role->reduction;
  };
  absl::flat_hash_set<ops::TermRef> materialized(roots.begin(), roots.end());
  for (const auto& [id, t, times] : order) {
    const auto role = role_of(t, types);
    for (std::size_t i = 0; i < t->arity(); ++i)
      if (!role || !backend::CostModel::reads_fused(*role, i, types[i], t->type()))
        materialized.insert(t->operand(i));
  }
  double total = 0;
  for (const auto& [id, t, times] : order) {
    double one = 0;
    if (const auto role = role_of(t, types)) {
      std::uint32_t fused_operands = 0;
      for (std::size_t i = 0; i < t->arity(); ++i)
        if (backend::CostModel::reads_fused(*role, i, types[i], t->type()) &&
            in_group(t->operand(i)))
          fused_operands |= 1u << i;
      one = model.fused_op_cost(t->kind(), types, t->type(), fused_operands,
                                role->reduction || materialized.contains(t));
    } else {
      std::optional<std::int64_t> trips;
      const ops::ScanSpec* spec = nullptr;
      if (t->kind() == ops::OpKind::Scan) {
        trips = model.trip_count(t);
        spec = &t->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
      }
      one = node_cost(t->kind(), types, t->type(), model, trips, spec);
    }
    total += std::min(kGradCost, times * one);
  }
  return total;
}

std::size_t count_unstable(TensorEGraph& g, std::span<const ops::TermRef> roots) {
  if (!g.has_unstable()) return 0;
  std::size_t n = 0;
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](ops::TermRef t) { n += g.unstable(t); });
  return n;
}

}  // namespace eqsat::rules
