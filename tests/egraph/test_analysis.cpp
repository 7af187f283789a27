// Tests of e-class analyses: constant folding on a toy arithmetic language,
// where `modify` adds the literal and unions it (also when a merge makes a
// class constant), with the analysis invariant checked.
#include "egraph/analysis_of.hpp"
#include "egraph/runner.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace eqsat::egraph;

namespace {

const Symbol kNum("num"), kAdd("add"), kMul("mul"), kVar("var");

// Literals are `num@V` (V the value); add and mul fold when both sides do.
struct ConstFold : AnalysisOf<ConstFold, std::optional<std::int64_t>> {
  int modifies = 0;
  std::optional<std::int64_t> make(const EGraph&, const ENodeRef& n) {
    if (n.op == kNum) return static_cast<std::int64_t>(n.payload);
    if (n.op != kAdd && n.op != kMul) return std::nullopt;
    auto a = data(n.children[0]), b = data(n.children[1]);
    if (!a || !b) return std::nullopt;
    return n.op == kAdd ? *a + *b : *a * *b;
  }
  DidMerge merge(std::optional<std::int64_t>& a, std::optional<std::int64_t> b) {
    if (!a && b) {
      a = b;
      return {true, false};
    }
    return {false, a.has_value() && !b.has_value()};
  }
  void modify(EGraph& g, EClassId c) {
    ++modifies;
    if (std::optional<std::int64_t> v = data(c)) {
      g.merge(c, g.add(kNum, static_cast<Payload>(*v)));
    }
  }
};

bool holds_literal(const EGraph& g, EClassId c, std::int64_t v) {
  for (ENodeId n : g.nodes(c)) {
    if (g.op(n) == kNum && g.payload(n) == static_cast<Payload>(v)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("constant folding adds the literal to a constant term's class") {
  EGraph g(std::make_unique<ConstFold>());
  EClassId root = g.add_expr(RecExpr::parse("(add num@2 (mul num@3 num@4))"));
  g.rebuild();
  g.check_invariants();
  CHECK(g.analysis<ConstFold>().data(root) == 14);
  CHECK(holds_literal(g, root, 14));
  CHECK(g.find(root) == g.find(g.add(kNum, 14)));
}

TEST_CASE("a merge that makes a class constant folds its parents on rebuild") {
  EGraph g(std::make_unique<ConstFold>());
  EClassId x = g.add(kVar, 1);
  EClassId sum = g.add_expr(RecExpr::parse("(add (mul var@1 num@5) num@1)"));
  CHECK_FALSE(g.analysis<ConstFold>().data(sum).has_value());
  g.merge(x, g.add(kNum, 3));
  g.rebuild();
  g.check_invariants();
  CHECK(g.analysis<ConstFold>().data(sum) == 16);
  CHECK(holds_literal(g, sum, 16));
  CHECK(g.analysis<ConstFold>().modifies > 0);
}

TEST_CASE("folding inside saturation: the runner proves (x+0)*(2+3) = 5x") {
  EGraph g(std::make_unique<ConstFold>());
  EClassId root = g.add_expr(RecExpr::parse("(mul (add var@1 num@0) (add num@2 num@3))"));
  std::vector<Rewrite> rules = {Rewrite::parse("add-0", "(add ?a num)", "?a"),
                                Rewrite::parse("mul-comm", "(mul ?a ?b)", "(mul ?b ?a)")};
  Runner runner(g);
  RunReport report = runner.run(rules);
  CHECK(report.stop_reason == StopReason::Saturated);
  g.check_invariants();
  CHECK(g.lookup_expr(RecExpr::parse("(mul num@5 var@1)")) == g.find(root));
}

TEST_CASE("random merges keep analysis data consistent with every e-node") {
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    EGraph g(std::make_unique<ConstFold>());
    std::vector<EClassId> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(g.add(kVar, i));
    for (int i = 0; i < 40; ++i) {
      unsigned what = rng() % 10;
      if (what < 3) {
        ids.push_back(g.add(kNum, rng() % 4));
      } else if (what < 8) {
        ids.push_back(
            g.add(what % 2 ? kAdd : kMul, 0, {ids[rng() % ids.size()], ids[rng() % ids.size()]}));
      } else {
        // Merge only classes whose values cannot conflict.
        EClassId a = ids[rng() % ids.size()], b = ids[rng() % ids.size()];
        const auto& da = g.analysis<ConstFold>().data(a);
        const auto& db = g.analysis<ConstFold>().data(b);
        if (!(da && db && *da != *db)) g.merge(a, b);
      }
    }
    g.rebuild();
    INFO("seed " << seed);
    REQUIRE_NOTHROW(g.check_invariants());
    for (EClassId c : g.classes()) {
      if (auto v = g.analysis<ConstFold>().data(c)) REQUIRE(holds_literal(g, c, *v));
    }
  }
}

namespace {

// An analysis whose modify wrongly rebuilds once armed.
struct Rebuilder : AnalysisOf<Rebuilder, int> {
  bool armed = false;
  int make(const EGraph&, const ENodeRef&) { return 0; }
  DidMerge merge(int&, int) { return {}; }
  void modify(EGraph& g, EClassId) {
    if (armed) g.rebuild();
  }
};

}  // namespace

TEST_CASE("rebuilding from modify during a rebuild is refused") {
  EGraph g(std::make_unique<Rebuilder>());
  EClassId a = g.add(kVar, 1), b = g.add(kVar, 2);
  g.add(kAdd, 0, {a, a});
  g.add(kAdd, 0, {b, a});
  g.merge(a, b);
  g.analysis<Rebuilder>().armed = true;  // the congruence merge calls modify
  CHECK_THROWS_WITH(
      g.rebuild(), Catch::Matchers::EndsWith(": EGraph::rebuild called from an analysis's modify"));
}
