// Tests of patterns and compiled e-matching: parsing and printing, repeated
// variables, payload variables, several matches per class, multi-patterns,
// all compared with a brute-force matcher on random e-graphs.
#include "egraph/ematch.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

using namespace eqsat::egraph;

namespace {

const Symbol kA("a"), kB("b"), kF("f"), kG("g");

// A match as comparable data: root, then bindings by variable name.
using Row = std::tuple<EClassId, std::map<Symbol, EClassId>, std::map<Symbol, Payload>>;

struct Binding {
  std::map<Symbol, EClassId> vars;
  std::map<Symbol, Payload> payloads;
};

// Every way pattern node i matches class c, extending `b` (brute force over
// every e-node of every class).
void brute(const EGraph& g, const Pattern& p, std::uint32_t i, EClassId c, Binding b,
           std::vector<Binding>& out) {
  const Pattern::Node& n = p.node(i);
  if (n.is_var) {
    Symbol v = p.vars()[n.var];
    auto it = b.vars.find(v);
    if (it != b.vars.end() && it->second != c) return;
    b.vars[v] = c;
    out.push_back(b);
    return;
  }
  for (ENodeId id : g.nodes(c)) {
    ENodeRef e = g.node(id);
    if (e.op != n.op || e.children.size() != n.arity) continue;
    Binding nb = b;
    if (n.payload.kind == PayloadMatch::Kind::Exact && e.payload != n.payload.value) continue;
    if (n.payload.kind == PayloadMatch::Kind::Var) {
      Symbol v = p.payload_vars()[n.payload.var];
      auto it = nb.payloads.find(v);
      if (it != nb.payloads.end() && it->second != e.payload) continue;
      nb.payloads[v] = e.payload;
    }
    std::vector<Binding> partial{nb};
    std::span<const std::uint32_t> kids = p.children(i);
    for (std::size_t k = 0; k < kids.size(); ++k) {
      std::vector<Binding> next;
      for (const Binding& pb : partial) brute(g, p, kids[k], e.children[k], pb, next);
      partial = std::move(next);
    }
    out.insert(out.end(), partial.begin(), partial.end());
  }
}

std::set<Row> brute_search(const EGraph& g, const MultiPattern& mp) {
  std::vector<std::pair<EClassId, Binding>> rows{{EClassId(), Binding{}}};
  for (std::size_t part = 0; part < mp.parts.size(); ++part) {
    const auto& [root_var, p] = mp.parts[part];
    std::vector<std::pair<EClassId, Binding>> next;
    for (const auto& [root, b] : rows) {
      for (EClassId c : g.classes()) {
        auto it = b.vars.find(root_var);
        if (it != b.vars.end() && it->second != c) continue;
        Binding nb = b;
        nb.vars[root_var] = c;
        std::vector<Binding> found;
        brute(g, p, p.root(), c, nb, found);
        for (Binding& f : found) next.emplace_back(part == 0 ? c : root, std::move(f));
      }
    }
    rows = std::move(next);
  }
  std::set<Row> out;
  for (auto& [root, b] : rows) out.emplace(root, b.vars, b.payloads);
  return out;
}

std::set<Row> brute_search(const EGraph& g, const Pattern& p) {
  std::set<Row> out;
  for (EClassId c : g.classes()) {
    std::vector<Binding> found;
    brute(g, p, p.root(), c, Binding{}, found);
    for (Binding& f : found) out.emplace(c, f.vars, f.payloads);
  }
  return out;
}

// Our matches as rows; fails if one is reported twice.
std::set<Row> rows_of(const Matches& m) {
  std::set<Row> out;
  for (std::size_t i = 0; i < m.size(); ++i) {
    Subst s = m.subst(i);
    Row r{m.roots[i], {}, {}};
    for (std::uint32_t v = 0; v < m.layout->vars.size(); ++v)
      std::get<1>(r)[m.layout->vars[v]] = s[v];
    for (std::uint32_t v = 0; v < m.layout->payload_vars.size(); ++v) {
      std::get<2>(r)[m.layout->payload_vars[v]] = s.payload(v);
    }
    INFO("match " << i << " reported twice");
    REQUIRE(out.insert(r).second);
  }
  return out;
}

// A random e-graph over a/b leaves (payloads 0-2), unary g and binary f.
void random_egraph(EGraph& g, std::mt19937& rng) {
  std::vector<EClassId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(g.add(i % 2 ? kA : kB, rng() % 3));
  int n = 10 + static_cast<int>(rng() % 30);
  for (int i = 0; i < n; ++i) {
    unsigned what = rng() % 10;
    if (what < 4) {
      ids.push_back(g.add(kG, rng() % 2, {ids[rng() % ids.size()]}));
    } else if (what < 8) {
      ids.push_back(g.add(kF, rng() % 2, {ids[rng() % ids.size()], ids[rng() % ids.size()]}));
    } else {
      g.merge(ids[rng() % ids.size()], ids[rng() % ids.size()]);
    }
  }
  g.rebuild();
}

// A random pattern of depth <= 3 over ?x ?y ?z and payload variables ?p ?q.
std::uint32_t random_pattern(Pattern& p, std::mt19937& rng, int depth) {
  const char* vars[] = {"?x", "?y", "?z"};
  const char* pvars[] = {"?p", "?q"};
  unsigned what = rng() % 10;
  auto payload = [&]() {
    switch (rng() % 4) {
      case 0:
        return PayloadMatch::any();
      case 1:
        return PayloadMatch::bind(p.payload_var(pvars[rng() % 2]));
      default:
        return PayloadMatch::exact(rng() % 2);
    }
  };
  if (depth == 0 || what < 3) {
    if (what % 3 == 0 && depth > 0) return p.op(rng() % 2 ? kA : kB, payload());
    return p.var(vars[rng() % 3]);
  }
  if (what < 6) {
    std::uint32_t c = random_pattern(p, rng, depth - 1);
    return p.op(kG, payload(), {c});
  }
  std::uint32_t l = random_pattern(p, rng, depth - 1);
  std::uint32_t r = random_pattern(p, rng, depth - 1);
  return p.op(kF, payload(), {l, r});
}

// A random pattern of depth <= 3.
Pattern random_pattern(std::mt19937& rng) {
  Pattern p;
  random_pattern(p, rng, 3);
  return p;
}

}  // namespace

TEST_CASE("patterns parse and print") {
  Pattern p = Pattern::parse("(f ?x (g@?p ?x) a@7 b@_)");
  CHECK(p.to_string() == "(f ?x (g@?p ?x) a@7 b@_)");
  CHECK(p.vars() == std::vector<Symbol>{Symbol("?x")});
  CHECK(p.payload_vars() == std::vector<Symbol>{Symbol("?p")});
  CHECK(p.is_ground(p.children(p.root())[2]));
  CHECK_FALSE(p.is_ground(p.children(p.root())[3]));
  CHECK_THROWS_WITH(Pattern::parse("(?f a)"), "1:2: error: a variable cannot be an operator");
  CHECK_THROWS_WITH(Pattern::parse("(f ?)"), "1:4: error: a variable needs a name after '?'");
  MultiPattern mp = MultiPattern::parse("?a = (f ?x ?y), ?b = (g ?x)");
  CHECK(mp.to_string() == "?a = (f ?x ?y), ?b = (g ?x)");
  CHECK_THROWS_WITH(MultiPattern::parse("?a (f ?x)"), "1:1: error: expected '= PATTERN' after ?a");
}

TEST_CASE("repeated variables must bind one class") {
  EGraph g;
  EClassId a = g.add(kA), b = g.add(kB);
  EClassId faa = g.add(kF, 0, {a, a});
  g.add(kF, 0, {a, b});
  g.rebuild();
  MatchProgram same(Pattern::parse("(f ?x ?x)"));
  Matches m;
  same.search(g, m);
  REQUIRE(m.size() == 1);
  CHECK(m.roots[0] == faa);
  CHECK(m.subst(0).get(Symbol("?x")) == a);
  g.merge(a, b);
  g.rebuild();
  m.clear();
  same.search(g, m);
  CHECK(m.size() == 1);  // f(a,a) and f(a,b) are now one e-node
}

TEST_CASE("payload variables bind payloads and must agree") {
  EGraph g;
  EClassId a = g.add(kA);
  EClassId g1 = g.add(kG, 1, {a});
  g.add(kF, 1, {g1, a});
  g.add(kF, 2, {g1, a});
  g.rebuild();
  Matches m;  // refers to its program's variables: keep the program alive
  MatchProgram same(Pattern::parse("(f@?p (g@?p ?x) ?x)"));
  same.search(g, m);
  REQUIRE(m.size() == 1);
  CHECK(m.subst(0).get_payload(Symbol("?p")) == 1);
  m.clear();
  MatchProgram any(Pattern::parse("(f@_ (g@?p ?x) ?x)"));
  any.search(g, m);
  CHECK(m.size() == 2);
}

TEST_CASE("a class with several matching e-nodes gives several matches") {
  EGraph g;
  EClassId a = g.add(kA), b = g.add(kB);
  EClassId ga = g.add(kG, 0, {a}), gb = g.add(kG, 0, {b});
  g.merge(ga, gb);
  g.rebuild();
  Matches m;
  MatchProgram prog(Pattern::parse("(g ?x)"));
  prog.search(g, m);
  CHECK(m.size() == 2);
  CHECK(m.roots[0] == m.roots[1]);
  m.clear();
  prog.search(g, m, 1);  // the limit is honoured
  CHECK(m.size() == 1);
}

TEST_CASE("a ground subterm absent from the e-graph gives no match") {
  EGraph g;
  EClassId a = g.add(kA);
  g.add(kF, 0, {a, a});
  g.rebuild();
  Matches m;
  MatchProgram with_b(Pattern::parse("(f ?x b)")), with_a(Pattern::parse("(f ?x a)"));
  with_b.search(g, m);
  CHECK(m.empty());
  with_a.search(g, m);
  CHECK(m.size() == 1);
}

TEST_CASE("e-matching finds exactly what a brute-force matcher finds") {
  std::size_t total = 0;
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    EGraph g;
    random_egraph(g, rng);
    Pattern p = random_pattern(rng);
    INFO("seed " << seed << " pattern " << p.to_string());
    MatchProgram prog(p);
    Matches m;
    prog.search(g, m);
    std::set<Row> ours = rows_of(m);
    REQUIRE(ours == brute_search(g, p));
    total += ours.size();
    // search_eclass agrees with search restricted to that class.
    for (EClassId c : g.classes()) {
      Matches mc;
      prog.search_eclass(g, c, mc);
      for (EClassId r : mc.roots) REQUIRE(r == c);
      REQUIRE(mc.size() == static_cast<std::size_t>(std::count(m.roots.begin(), m.roots.end(), c)));
    }
  }
  CHECK(total > 300);  // the random cases do match things
}

TEST_CASE("multi-patterns find exactly what a brute-force join finds") {
  std::size_t total = 0;
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    EGraph g;
    random_egraph(g, rng);
    MultiPattern mp;
    for (int part = 0; part < 2; ++part) {
      Pattern p;
      std::uint32_t kid = random_pattern(p, rng, 2);
      p.op(rng() % 2 ? kG : kF, PayloadMatch::any(),
           std::vector<std::uint32_t>(rng() % 2 ? 1 : 2, kid));
      const char* roots[] = {"?r", "?s", "?x"};
      mp.parts.emplace_back(Symbol(roots[part == 0 ? 0 : 1 + rng() % 2]), std::move(p));
    }
    INFO("seed " << seed << " multi-pattern " << mp.to_string());
    Matches m;
    MatchProgram prog(mp);
    prog.search(g, m);
    std::set<Row> ours = rows_of(m);
    std::set<Row> expected = brute_search(g, mp);
    REQUIRE(ours == expected);
    total += ours.size();
  }
  CHECK(total > 20);  // the random cases do match things
}

TEST_CASE("searches read the last rebuild's snapshot, whatever adds and merges follow") {
  for (std::uint32_t seed = 1; seed <= 100; ++seed) {
    std::mt19937 rng(seed);
    EGraph g;
    random_egraph(g, rng);
    Pattern p = random_pattern(rng);
    p.op(kF, PayloadMatch::any(), {p.root(), p.op(kA, PayloadMatch::exact(rng() % 3))});
    MatchProgram prog(p);
    Matches before, after;
    prog.search(g, before);
    std::set<Row> expected = rows_of(before);
    std::vector<EClassId> ids(g.classes().begin(), g.classes().end());
    for (int i = 0; i < 20; ++i) {
      EClassId x = ids[rng() % ids.size()], y = ids[rng() % ids.size()];
      if (rng() % 2) {
        g.merge(x, y);
      } else {
        ids.push_back(g.add(kF, rng() % 2, {x, g.add(kA, rng() % 3)}));
      }
    }
    INFO("seed " << seed << " pattern " << p.to_string());
    prog.search(g, after);
    REQUIRE(rows_of(after) == expected);
  }
}

namespace {

// `r` with its classes as they are now (find).
Row canonical(const EGraph& g, Row r) {
  std::get<0>(r) = g.find(std::get<0>(r));
  for (auto& [v, c] : std::get<1>(r)) c = g.find(c);
  return r;
}

// `p` with its `any` payloads made exact (a program with them cannot tell
// seen matches).
Pattern without_any(const Pattern& p, std::mt19937& rng) {
  Pattern out;
  std::vector<std::uint32_t> ids(p.size());
  for (std::uint32_t i = 0; i < p.size(); ++i) {
    const Pattern::Node& n = p.node(i);
    if (n.is_var) {
      ids[i] = out.var(p.vars()[n.var]);
      continue;
    }
    PayloadMatch m = n.payload;
    if (m.kind == PayloadMatch::Kind::Var)
      m = PayloadMatch::bind(out.payload_var(p.payload_vars()[m.var]));
    if (m.kind == PayloadMatch::Kind::Any) m = PayloadMatch::exact(rng() % 2);
    std::vector<std::uint32_t> kids;
    for (std::uint32_t c : p.children(i)) kids.push_back(ids[c]);
    ids[i] = out.op(n.op, m, kids);
  }
  return out;
}

}  // namespace

TEST_CASE("a search past a snapshot skips only matches that snapshot held") {
  // Matches found in snapshot s, then random adds and merges and a rebuild:
  // a search with seen_through = s counts every match, and writes every
  // match that was not one of snapshot s's (compared as classes are now).
  std::size_t fresh = 0, skipped = 0;
  for (std::uint32_t seed = 1; seed <= 600; ++seed) {
    std::mt19937 rng(seed);
    EGraph g;
    random_egraph(g, rng);
    const Pattern p = without_any(random_pattern(rng), rng);
    MatchProgram prog(p);
    REQUIRE(prog.skips_seen());
    INFO("seed " << seed << " pattern " << p.to_string());
    Matches then;
    prog.search(g, then);
    const std::uint32_t s = g.snapshot_number();
    std::vector<EClassId> ids(g.classes().begin(), g.classes().end());
    const int changes = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < changes; ++i) {
      EClassId x = ids[rng() % ids.size()], y = ids[rng() % ids.size()];
      switch (rng() % 3) {
        case 0:
          g.merge(x, y);
          break;
        case 1:
          ids.push_back(g.add(kF, rng() % 2, {x, y}));
          break;
        default:
          ids.push_back(g.add(kG, rng() % 2, {x}));
      }
    }
    g.rebuild();
    std::set<Row> old;
    for (const Row& r : rows_of(then)) old.insert(canonical(g, r));
    Matches all, unseen;
    prog.search(g, all);
    const std::size_t counted =
        prog.search(g, unseen, std::numeric_limits<std::size_t>::max(), nullptr, s);
    REQUIRE(counted == all.size());
    const std::set<Row> every = rows_of(all), written = rows_of(unseen);
    for (const Row& r : written) REQUIRE(every.count(r) == 1);
    for (const Row& r : every) {
      if (old.count(r)) continue;
      REQUIRE(written.count(r) == 1);
    }
    fresh += written.size();
    skipped += every.size() - written.size();
  }
  INFO("fresh " << fresh << " skipped " << skipped);
  CHECK(fresh > 100);    // new matches were found
  CHECK(skipped > 100);  // and seen ones skipped
}

TEST_CASE("programs that cannot tell seen matches refuse to skip them") {
  EGraph g;
  g.add_expr(RecExpr::parse("(f a b)"));
  g.rebuild();
  MatchProgram any(Pattern::parse("(f@_ ?x ?y)"));
  CHECK(MatchProgram(Pattern::parse("(f ?x ?y)")).skips_seen());
  CHECK(MatchProgram(Pattern::parse("?x")).skips_seen());
  CHECK_FALSE(any.skips_seen());
  Matches m;
  CHECK_THROWS_WITH(any.search(g, m, 10, nullptr, 1),
                    Catch::Matchers::Contains("this program cannot tell seen matches"));
}
