// Tests of Runner and the schedulers: every stop reason is reached (the node
// limit within 10%), the backoff scheduler bans an exploding rule and still
// saturates, hooks stop a run, custom appliers and bidirectional rules work,
// two runs give identical e-graphs and reports, and skipping seen matches
// (semi-naive application) gives the e-graphs applying every match gives.
#include "egraph/runner.hpp"

#include "bench/egg_math_language.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace eqsat::egraph;

namespace {

std::vector<Rewrite> assoc_comm() {
  std::vector<Rewrite> rules = {Rewrite::parse("comm", "(+ ?a ?b)", "(+ ?b ?a)")};
  for (Rewrite& r : Rewrite::bidirectional("assoc", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)")) {
    rules.push_back(std::move(r));
  }
  return rules;
}

// (+ x0 (+ x1 (+ ... xn-1)))
std::string sum_of(int n) {
  std::string s;
  for (int i = 0; i + 1 < n; ++i) {
    s += "(+ x";
    s += std::to_string(i);
    s += ' ';
  }
  s += 'x';
  s += std::to_string(n - 1);
  s += std::string(n - 1, ')');
  return s;
}

// Applier: records each match and adds (tag ?x) to the matched class.
struct Tagger : Applier {
  std::uint32_t x = 0;
  int calls = 0;
  void bind(const VarLayout& layout) override {
    if (!layout.index_of(Symbol("?x"))) throw std::invalid_argument("needs ?x");
    x = *layout.index_of(Symbol("?x"));
  }
  bool apply(EGraph& g, EClassId root, const Subst& s) override {
    ++calls;
    return g.merge(root, g.add(Symbol("tag"), 0, {s[x]}));
  }
};

}  // namespace

TEST_CASE("runner: saturates when nothing changes") {
  EGraph g;
  EClassId root = g.add_expr(RecExpr::parse(sum_of(4)));
  Runner runner(g);
  RunReport r = runner.run(assoc_comm());
  CHECK(r.stop_reason == StopReason::Saturated);
  g.check_invariants();
  // Every bracketing and order of 4 terms: 15 non-empty subsets as classes.
  CHECK(g.num_classes() == 15);
  CHECK(g.lookup_expr(RecExpr::parse("(+ (+ x3 x2) (+ x1 x0))")) == g.find(root));
  CHECK(r.iterations.back().enodes == r.enodes);
}

TEST_CASE("runner: iteration limit") {
  EGraph g;
  g.add_expr(RecExpr::parse(sum_of(8)));
  Runner runner(g, RunnerConfig{.iter_limit = 2, .node_limit = 1000000, .time_limit = 100});
  RunReport r = runner.run(assoc_comm());
  CHECK(r.stop_reason == StopReason::IterationLimit);
  CHECK(r.iterations.size() == 2);
  g.check_invariants();
}

TEST_CASE("runner: node limit is not overshot by more than 10%") {
  for (std::size_t limit : {300u, 1000u, 5000u}) {
    EGraph g;
    g.add_expr(RecExpr::parse(sum_of(10)));
    Runner runner(g, RunnerConfig{.iter_limit = 100, .node_limit = limit, .time_limit = 100});
    runner.set_scheduler(std::make_unique<SimpleScheduler>());
    RunReport r = runner.run(assoc_comm());
    INFO("limit " << limit);
    CHECK(r.stop_reason == StopReason::NodeLimit);
    CHECK(g.num_nodes() <= limit * 11 / 10);
    CHECK(g.num_nodes() >= limit / 2);
    CHECK(g.clean());
    g.check_invariants();
  }
}

TEST_CASE("runner: time limit, enforced inside an iteration") {
  EGraph g;
  g.add_expr(RecExpr::parse(sum_of(14)));
  Runner runner(g, RunnerConfig{.iter_limit = 1000, .node_limit = 100000000, .time_limit = 0.05});
  runner.set_scheduler(std::make_unique<SimpleScheduler>());
  RunReport r = runner.run(assoc_comm());
  CHECK(r.stop_reason == StopReason::TimeLimit);
  g.check_invariants();
}

TEST_CASE("runner: a hook stops the run with its message") {
  EGraph g;
  g.add_expr(RecExpr::parse(sum_of(6)));
  Runner runner(g);
  int calls = 0;
  runner.add_hook([&](Runner& r) -> std::optional<std::string> {
    ++calls;
    if (r.report().iterations.size() == 2) return "enough";
    return std::nullopt;
  });
  RunReport r = runner.run(assoc_comm());
  CHECK(r.stop_reason == StopReason::Other);
  CHECK(r.stop_message == "enough");
  CHECK(calls == 3);
  CHECK(r.iterations.size() == 2);
}

TEST_CASE("backoff scheduler bans an exploding rule and still saturates") {
  EGraph g;
  EClassId root = g.add_expr(RecExpr::parse(sum_of(5)));
  Runner runner(g, RunnerConfig{.iter_limit = 1000, .node_limit = 1000000, .time_limit = 100});
  runner.set_scheduler(std::make_unique<BackoffScheduler>(/*match_limit=*/8, /*ban_length=*/2));
  std::vector<Rewrite> rules = assoc_comm();
  RunReport r = runner.run(rules);
  CHECK(r.stop_reason == StopReason::Saturated);
  auto& backoff = static_cast<BackoffScheduler&>(runner.scheduler());
  CHECK(backoff.times_banned(0) + backoff.times_banned(1) + backoff.times_banned(2) > 0);
  bool some_banned = false;
  for (const Iteration& it : r.iterations) {
    for (const RuleRecord& rr : it.rules) some_banned = some_banned || rr.banned;
  }
  CHECK(some_banned);
  CHECK(g.num_classes() == 31);  // 2^5 - 1 subsets: the same saturated e-graph
  CHECK(g.lookup_expr(RecExpr::parse("(+ x4 (+ x3 (+ x2 (+ x1 x0))))")) == g.find(root));
}

TEST_CASE("custom appliers and conditions") {
  EGraph g;
  EClassId fa = g.add_expr(RecExpr::parse("(f a)"));
  EClassId fb = g.add_expr(RecExpr::parse("(f b)"));
  auto tagger = std::make_shared<Tagger>();
  Rewrite tag("tag", Pattern::parse("(f ?x)"), tagger);
  Symbol a("a");
  tag.when([a](const EGraph& eg, EClassId, const Subst& s) {
    for (ENodeId n : eg.nodes(s.get(Symbol("?x")))) {
      if (eg.op(n) == a) return true;
    }
    return false;
  });
  Runner runner(g);
  RunReport r = runner.run(std::vector<Rewrite>{tag});
  CHECK(r.stop_reason == StopReason::Saturated);
  CHECK(g.lookup_expr(RecExpr::parse("(tag a)")) == g.find(fa));
  CHECK_FALSE(g.lookup_expr(RecExpr::parse("(tag b)")).has_value());
  CHECK(g.find(fb) != g.find(fa));
  CHECK(tagger->calls == 2);  // applied once, then the match is still found but changes nothing
  CHECK_THROWS_AS(Rewrite("bad", Pattern::parse("(f ?y)"), std::make_shared<Tagger>()),
                  std::invalid_argument);
  CHECK_THROWS_WITH(Rewrite::parse("r", "(f ?x)", "(g ?y)"),
                    "rewrite r: variable ?y of the right-hand side is not bound by the left-hand "
                    "side");
  CHECK_THROWS_AS(Rewrite::bidirectional("r", "(f ?x ?y)", "(g ?x)"), std::invalid_argument);
}

TEST_CASE("payload variables carry over to the right-hand side") {
  EGraph g;
  EClassId root = g.add_expr(RecExpr::parse("(log (softmax@7 x))"));
  Runner runner(g);
  RunReport r = runner.run(std::vector<Rewrite>{
      Rewrite::parse("log-softmax", "(log (softmax@?ax ?x))", "(log_softmax@?ax ?x)")});
  CHECK(r.stop_reason == StopReason::Saturated);
  CHECK(g.lookup_expr(RecExpr::parse("(log_softmax@7 x)")) == g.find(root));
}

TEST_CASE("two runs give identical e-graphs and reports") {
  auto run = [] {
    auto g = std::make_unique<EGraph>();
    g->add_expr(RecExpr::parse(sum_of(7)));
    g->add_expr(RecExpr::parse("(+ (+ x1 x3) (+ x5 x0))"));
    Runner runner(*g, RunnerConfig{.iter_limit = 6, .node_limit = 3000, .time_limit = 100});
    RunReport r = runner.run(assoc_comm());
    return std::make_pair(g->dump(), r.to_string(false));
  };
  auto [dump1, report1] = run();
  auto [dump2, report2] = run();
  CHECK(dump1 == dump2);
  CHECK(report1 == report2);
  CHECK(report1.find("Stop reason") != std::string::npos);
}

TEST_CASE("streaming matches into apply changes nothing but memory and time") {
  // SimpleScheduler streams matches into apply during the search (in
  // batches of MatchProgram::kBatch); a backoff scheduler that never bans
  // searches each rule fully first. The e-graphs and applications agree.
  for (std::size_t node_limit : {2000u, 30000u, 200000u}) {
    auto run = [&](std::unique_ptr<Scheduler> s) {
      auto g = std::make_unique<EGraph>();
      g->add_expr(RecExpr::parse(sum_of(11)));
      Runner runner(*g, RunnerConfig{.iter_limit = 5, .node_limit = node_limit, .time_limit = 100});
      runner.set_scheduler(std::move(s));
      RunReport r = runner.run(assoc_comm());
      std::vector<std::size_t> applied;
      std::size_t most_matches = 0;
      for (const Iteration& it : r.iterations) {
        for (const RuleRecord& rr : it.rules) {
          applied.push_back(rr.applied);
          most_matches = std::max(most_matches, rr.matches);
        }
      }
      return std::make_tuple(g->dump(), applied, r.stop_reason, most_matches);
    };
    auto [dump1, applied1, stop1, most1] = run(std::make_unique<SimpleScheduler>());
    auto [dump2, applied2, stop2, most2] = run(std::make_unique<BackoffScheduler>(1u << 30, 1));
    INFO("node limit " << node_limit);
    CHECK(most2 > MatchProgram::kBatch);  // batches were really streamed
    CHECK(dump1 == dump2);
    CHECK(applied1 == applied2);
    CHECK(stop1 == stop2);
  }
}

TEST_CASE("runner refuses two rules with one name") {
  EGraph g;
  g.add_expr(RecExpr::parse("(+ a b)"));
  Runner runner(g);
  std::vector<Rewrite> rules = {Rewrite::parse("r", "(+ ?a ?b)", "(+ ?b ?a)"),
                                Rewrite::parse("r", "(+ ?a ?b)", "(* ?a ?b)")};
  CHECK_THROWS_WITH(runner.run(rules),
                    Catch::Matchers::EndsWith(": Runner::run: two rules are named r"));
}

TEST_CASE("a multi-pattern rule joins two classes through a shared variable") {
  // ?a = (f ?x), ?b = (g ?x)  =>  merge ?a and ?b
  struct Join : Applier {
    std::uint32_t a = 0, b = 0;
    void bind(const VarLayout& l) override {
      a = *l.index_of(Symbol("?a"));
      b = *l.index_of(Symbol("?b"));
    }
    bool apply(EGraph& g, EClassId, const Subst& s) override { return g.merge(s[a], s[b]); }
  };
  EGraph g;
  EClassId fx = g.add_expr(RecExpr::parse("(f x)"));
  EClassId gx = g.add_expr(RecExpr::parse("(g x)"));
  EClassId gy = g.add_expr(RecExpr::parse("(g y)"));
  Runner runner(g);
  RunReport r = runner.run(std::vector<Rewrite>{
      Rewrite("join", MultiPattern::parse("?a = (f ?x), ?b = (g ?x)"), std::make_shared<Join>())});
  CHECK(r.stop_reason == StopReason::Saturated);
  CHECK(g.find(fx) == g.find(gx));
  CHECK(g.find(fx) != g.find(gy));
}

namespace {

// Whether a and b are the same e-graph up to the numbering of classes: a's
// classes mapped to b's bottom-up (an e-node of a whose children are mapped
// is looked up in b), every class and e-node of a finds its image, the map
// is one to one, and both have as many classes and e-nodes.
bool isomorphic(const EGraph& a, const EGraph& b) {
  if (a.num_classes() != b.num_classes() || a.num_nodes() != b.num_nodes()) return false;
  std::map<EClassId, EClassId> to_b;
  std::size_t mapped_nodes = 0;
  for (bool grew = true; grew;) {
    grew = false;
    mapped_nodes = 0;
    for (EClassId c : a.classes())
      for (ENodeId n : a.nodes(c)) {
        const ENodeRef e = a.node(n);
        std::vector<EClassId> kids;
        for (EClassId k : e.children) {
          auto it = to_b.find(k);
          if (it == to_b.end()) break;
          kids.push_back(it->second);
        }
        if (kids.size() != e.children.size()) continue;
        const std::optional<EClassId> image = b.lookup(e.op, e.payload, kids);
        if (!image) return false;
        ++mapped_nodes;
        auto [it, fresh] = to_b.emplace(c, *image);
        if (!fresh && it->second != *image) return false;
        grew |= fresh;
      }
  }
  std::set<EClassId> images;
  for (const auto& [from, to] : to_b) images.insert(to);
  return to_b.size() == a.num_classes() && images.size() == to_b.size() &&
         mapped_nodes == a.num_nodes();
}

// What must not depend on skipping: per iteration the e-nodes, classes and
// matches per rule, and the stop reason.
struct RunTrace {
  std::vector<std::size_t> counts;
  StopReason stop;
  bool operator==(const RunTrace&) const = default;
};

RunTrace trace(const RunReport& r) {
  RunTrace t{{}, r.stop_reason};
  for (const Iteration& it : r.iterations) {
    t.counts.insert(t.counts.end(), {it.enodes, it.eclasses});
    for (const RuleRecord& rr : it.rules) t.counts.push_back(rr.matches);
  }
  return t;
}

}  // namespace

TEST_CASE("skipping seen matches gives the e-graphs applying every match gives") {
  // egg's math rules (conditions, constant folding that prunes, ground
  // terms, custom appliers) on the start terms of egg's tests, each run to
  // its iteration limit or saturation, with the simple scheduler, egg's
  // backoff and a backoff that bans often (16 matches, 1 iteration).
  namespace math = eqsat::bench::math;
  const std::vector<std::string> starts = {
      "(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))",
      "(/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2)))",
      "(* (+ x 3) (+ x 1))",
      "(d x (- (pow x 3) (* 7 (pow x 2))))",
      "(i (* (cos x) x) x)",
      "(+ (* y (+ x y)) (- (+ x 2) (+ x x)))",
  };
  std::size_t skipped_some = 0;
  for (const std::string& start : starts)
    for (int scheduler : {0, 1, 2}) {
      auto run = [&](bool skip, RunReport& report) {
        auto g = std::make_unique<EGraph>(std::make_unique<math::ConstantFold>());
        g->add_expr(RecExpr::parse(start, math::syntax()));
        Runner runner(*g, RunnerConfig{.iter_limit = 6,
                                       .node_limit = 1000000,
                                       .time_limit = 100,
                                       .skip_seen_matches = skip});
        if (scheduler == 0) runner.set_scheduler(std::make_unique<SimpleScheduler>());
        if (scheduler == 2) runner.set_scheduler(std::make_unique<BackoffScheduler>(16, 1));
        report = runner.run(math::rules());
        return g;
      };
      RunReport all, unseen;
      const auto every = run(false, all);
      const auto skipping = run(true, unseen);
      INFO(start << ", scheduler " << scheduler);
      CHECK(trace(all) == trace(unseen));
      CHECK(isomorphic(*every, *skipping));
      CHECK(isomorphic(*skipping, *every));
      skipped_some += every->num_class_ids() > skipping->num_class_ids();
      std::size_t skipped_all = 0, skipped_unseen = 0;
      for (const Iteration& it : all.iterations)
        for (const RuleRecord& rr : it.rules) skipped_all += rr.skipped;
      for (const Iteration& it : unseen.iterations)
        for (const RuleRecord& rr : it.rules) skipped_unseen += rr.skipped;
      CHECK(skipped_all == 0);
      if (all.iterations.size() > 1) CHECK(skipped_unseen > 0);
    }
  CHECK(skipped_some >= 6);  // skipping really left out applications
}
