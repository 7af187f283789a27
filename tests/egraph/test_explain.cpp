// Tests of explanations (egraph/explain.hpp): steps name the rule that
// fired, congruence is expanded child by child, every step replays (the
// named rule, run on the step's `before` in a fresh e-graph, gives its
// `after`), chains turn the start term into the end term, and with
// explanations off nothing is recorded.
#include "egraph/explain.hpp"

#include "egraph/runner.hpp"
#include "support/internal_error.hpp"

#include <catch2/catch.hpp>

#include <memory>

using namespace eqsat::egraph;

namespace {

// A term as a tree, to apply steps to the whole term.
struct Tree {
  std::string head;  // op, or op@payload
  std::vector<Tree> kids;

  std::string to_string() const {
    if (kids.empty()) return head;
    std::string s = "(";
    s += head;
    for (const Tree& k : kids) s.append(" ").append(k.to_string());
    return s += ')';
  }
};

Tree tree_of(const ProofForest& f, EClassId t) {
  Tree out{std::string(f.op(t).name()), {}};
  if (f.payload(t) != 0) out.head.append("@").append(std::to_string(f.payload(t)));
  for (EClassId k : f.children(t)) out.kids.push_back(tree_of(f, k));
  return out;
}

Tree& at(Tree& t, const std::vector<std::uint32_t>& position) {
  Tree* p = &t;
  for (std::uint32_t i : position) p = &p->kids.at(i);
  return *p;
}

const Rewrite& rule_named(const std::vector<Rewrite>& rules, Symbol name) {
  for (const Rewrite& r : rules)
    if (r.reason() == name) return r;
  FAIL("no rule named " << name.name());
  return rules.front();
}

// The rule turns `from` into `to` in one iteration of a fresh e-graph.
bool rule_rewrites(const Rewrite& rule, const std::string& from, const std::string& to) {
  EGraph g;
  const EClassId root = g.add_expr(RecExpr::parse(from));
  Runner runner(g, RunnerConfig{.iter_limit = 1});
  runner.run(std::vector<Rewrite>{rule});
  const std::optional<EClassId> got = g.lookup_expr(RecExpr::parse(to));
  return got && g.find(*got) == g.find(root);
}

// Replays the explanation of a = b: each step's `before` is the subterm at
// its position, the rule rewrites it into `after`, and the steps turn a's
// term into b's.
void check_replays(const EGraph& g, const std::vector<Rewrite>& rules, EClassId a, EClassId b) {
  const ProofForest& f = *g.proofs();
  Tree whole = tree_of(f, a);
  for (const ProofStep& s : g.explain(a, b)) {
    const std::string before = f.to_string(s.before), after = f.to_string(s.after);
    INFO(s.rule.name() << (s.forward ? "" : " (right to left)") << ": " << before << " => "
                       << after);
    Tree& here = at(whole, s.position);
    CHECK(here.to_string() == before);
    const Rewrite& rule = rule_named(rules, s.rule);
    CHECK((s.forward ? rule_rewrites(rule, before, after) : rule_rewrites(rule, after, before)));
    here = tree_of(f, s.after);
  }
  CHECK(whole.to_string() == f.to_string(b));
}

std::vector<Rewrite> arithmetic() {
  std::vector<Rewrite> rules = {
      Rewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"),
      Rewrite::parse("comm-mul", "(* ?a ?b)", "(* ?b ?a)"),
      Rewrite::parse("add-zero", "(+ ?a 0)", "?a"),
      Rewrite::parse("mul-one", "(* ?a 1)", "?a"),
      Rewrite::parse("distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))"),
  };
  for (Rewrite& r : Rewrite::bidirectional("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"))
    rules.push_back(std::move(r));
  return rules;
}

}  // namespace

TEST_CASE("explain: a rule's step names it, at the root") {
  EGraph g(nullptr, Explanations::On);
  const EClassId a = g.add_expr(RecExpr::parse("(+ x 0)"));
  Runner(g).run(std::vector<Rewrite>{Rewrite::parse("add-zero", "(+ ?a 0)", "?a")});
  const EClassId x = g.add(Symbol("x"));
  const std::vector<ProofStep> steps = g.explain(a, x);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].rule == Symbol("add-zero"));
  CHECK(steps[0].forward);
  CHECK(steps[0].position.empty());
  CHECK(g.proofs()->to_string(steps[0].before) == "(+ x 0)");
  CHECK(g.proofs()->to_string(steps[0].after) == "x");
  // Backwards: the same step, right to left.
  const std::vector<ProofStep> back = g.explain(x, a);
  REQUIRE(back.size() == 1);
  CHECK_FALSE(back[0].forward);
  CHECK(g.proofs()->to_string(back[0].before) == "x");
}

TEST_CASE("explain: the same term needs no step") {
  EGraph g(nullptr, Explanations::On);
  const EClassId a = g.add_expr(RecExpr::parse("(f x)"));
  CHECK(g.explain(a, a).empty());
}

TEST_CASE("explain: congruence is explained child by child, at the child's position") {
  EGraph g(nullptr, Explanations::On);
  const EClassId a = g.add(Symbol("a")), b = g.add(Symbol("b")), c = g.add(Symbol("c"));
  const EClassId fab = g.add(Symbol("f"), 0, {a, c}), fbc = g.add(Symbol("f"), 0, {b, c});
  g.merge(a, b, Symbol("a-is-b"));
  g.rebuild();
  REQUIRE(g.find(fab) == g.find(fbc));
  const std::vector<ProofStep> steps = g.explain(fab, fbc);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].rule == Symbol("a-is-b"));
  CHECK(steps[0].position == std::vector<std::uint32_t>{0});
}

TEST_CASE("explain: add gives an id of exactly the term asked for") {
  EGraph g(nullptr, Explanations::On);
  const EClassId a = g.add(Symbol("a")), b = g.add(Symbol("b"));
  const EClassId fa = g.add(Symbol("f"), 0, {a});
  g.merge(a, b, Symbol("a-is-b"));
  g.rebuild();
  // The hash-cons holds (f a) for (f b): (f b) gets its own id in that class.
  const EClassId fb = g.add(Symbol("f"), 0, {b});
  CHECK(fb != fa);
  CHECK(g.find(fb) == g.find(fa));
  CHECK(g.proofs()->to_string(fb) == "(f b)");
  CHECK(g.add(Symbol("f"), 0, {b}) == fb);  // and keeps it
  CHECK(g.num_nodes() == 3);
  g.check_invariants();
  const std::vector<ProofStep> steps = g.explain(fa, fb);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].position == std::vector<std::uint32_t>{0});
}

TEST_CASE("explain: every step of a saturated arithmetic e-graph replays") {
  const std::vector<Rewrite> rules = arithmetic();
  EGraph g(nullptr, Explanations::On);
  const EClassId start = g.add_expr(RecExpr::parse("(* (+ y (+ x 0)) 1)"));
  Runner runner(g, RunnerConfig{.iter_limit = 8, .node_limit = 5000});
  runner.run(rules);
  g.check_invariants();
  for (const char* goal : {"(+ x y)", "(+ y x)", "(+ (+ x 0) y)", "(* 1 (+ y x))"}) {
    INFO(goal);
    const EClassId end = g.add_expr(RecExpr::parse(goal));
    REQUIRE(g.find(end) == g.find(start));
    CHECK_FALSE(g.explain(start, end).empty());
    check_replays(g, rules, start, end);
    check_replays(g, rules, end, start);
  }
}

TEST_CASE("explain: terms in different classes are not explained") {
  EGraph g(nullptr, Explanations::On);
  const EClassId x = g.add(Symbol("x")), y = g.add(Symbol("y"));
  CHECK_THROWS_AS(g.explain(x, y), eqsat::InternalError);
}

TEST_CASE("explain: off, the e-graph records nothing and keeps canonical ids") {
  EGraph g;
  const EClassId start = g.add_expr(RecExpr::parse("(* (+ y (+ x 0)) 1)"));
  Runner(g, RunnerConfig{.iter_limit = 8, .node_limit = 5000}).run(arithmetic());
  CHECK_FALSE(g.explaining());
  CHECK(g.proofs() == nullptr);
  CHECK_THROWS_AS(g.explain(start, start), eqsat::InternalError);
  const EClassId a = g.add(Symbol("a")), b = g.add(Symbol("b"));
  const EClassId fa = g.add(Symbol("f"), 0, {a});
  g.merge(a, b);
  g.rebuild();
  CHECK(g.add(Symbol("f"), 0, {b}) == g.find(fa));
  // The same run with explanations on does record.
  EGraph on(nullptr, Explanations::On);
  on.add_expr(RecExpr::parse("(* (+ y (+ x 0)) 1)"));
  Runner(on, RunnerConfig{.iter_limit = 8, .node_limit = 5000}).run(arithmetic());
  CHECK(on.proofs()->num_edges() > 0);
  CHECK(on.proofs()->num_terms() >= on.num_node_ids());
}
