// Tests of EGraph: hash-consing, congruence closure by rebuild (nested,
// through cycles), invariants after random adds and merges compared with a
// naive congruence closure, pruning, and determinism of ids.
#include "egraph/egraph.hpp"
#include "support/internal_error.hpp"

#include <catch2/catch.hpp>

#include <numeric>
#include <random>

using namespace eqsat::egraph;

namespace {

const Symbol kA("a"), kB("b"), kC("c"), kF("f"), kG("g");

// The naive congruence closure of a list of terms and merges: repeat until
// nothing changes: terms with equal heads and equivalent children are
// equivalent.
struct NaiveClosure {
  struct Term {
    Symbol op;
    Payload payload;
    std::vector<std::size_t> kids;
  };
  std::vector<Term> terms;
  std::vector<std::size_t> parent;

  std::size_t find(std::size_t i) {
    while (parent[i] != i) i = parent[i];
    return i;
  }
  void unite(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
  std::size_t add(Symbol op, Payload p, std::vector<std::size_t> kids) {
    terms.push_back({op, p, std::move(kids)});
    parent.push_back(parent.size());
    return terms.size() - 1;
  }
  void close() {
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < terms.size(); ++i) {
        for (std::size_t j = i + 1; j < terms.size(); ++j) {
          if (find(i) == find(j)) continue;
          const Term &x = terms[i], &y = terms[j];
          if (x.op != y.op || x.payload != y.payload || x.kids.size() != y.kids.size()) continue;
          bool same = true;
          for (std::size_t k = 0; k < x.kids.size() && same; ++k) {
            same = find(x.kids[k]) == find(y.kids[k]);
          }
          if (same) {
            unite(i, j);
            changed = true;
          }
        }
      }
    }
  }
};

}  // namespace

TEST_CASE("adding the same e-node twice gives the same class") {
  EGraph g;
  EClassId a = g.add(kA);
  EClassId fa = g.add(kF, 0, {a});
  CHECK(g.add(kF, 0, {a}) == fa);
  CHECK(g.add(kF, 1, {a}) != fa);  // the payload is part of the e-node
  CHECK(g.num_nodes() == 3);
  CHECK(g.lookup(kF, 0, std::vector<EClassId>{a}) == fa);
  CHECK_FALSE(g.lookup(kG, 0, std::vector<EClassId>{a}).has_value());
  g.rebuild();
  g.check_invariants();
}

TEST_CASE("e-nodes of three and of nine children are found again by canonical children") {
  // Beyond two children `add` takes another path (add_wide: the stack up
  // to eight, the heap beyond); it must canonicalize the same way.
  EGraph g;
  std::vector<EClassId> leaves;
  for (Payload p = 0; p < 9; ++p) leaves.push_back(g.add(kA, p));
  const std::vector<EClassId> three(leaves.begin(), leaves.begin() + 3);
  const EClassId f3 = g.add(kF, 0, three);
  const EClassId g9 = g.add(kG, 0, leaves);
  CHECK(g.add(kF, 0, three) == f3);
  CHECK(g.add(kG, 0, leaves) == g9);
  CHECK(g.num_nodes() == 11);
  g.merge(leaves[0], leaves[1]);
  g.rebuild();
  // With a merged child given by its other id, the same e-nodes.
  std::vector<EClassId> three_b = three, nine_b = leaves;
  three_b[0] = leaves[1];
  nine_b[0] = leaves[1];
  CHECK(g.find(g.add(kF, 0, three_b)) == g.find(f3));
  CHECK(g.find(g.add(kG, 0, nine_b)) == g.find(g9));
  CHECK(g.lookup(kG, 0, nine_b) == g.find(g9));
  CHECK(g.num_nodes() == 11);  // no e-node added
  g.rebuild();
  g.check_invariants();
}

TEST_CASE("ids from elsewhere are refused with a named error") {
  EGraph g;
  EClassId a = g.add(kA);
  using Catch::Matchers::EndsWith;
  CHECK_THROWS_WITH(g.add(kF, 0, {EClassId(7)}),
                    EndsWith(": EGraph::add: e-class id 7 is not in this e-graph"));
  CHECK_THROWS_WITH(g.merge(a, EClassId()),
                    EndsWith(": EGraph::merge: e-class id (invalid) is not in this e-graph"));
  CHECK_THROWS_AS(g.lookup(kF, 0, std::vector<EClassId>{EClassId(3)}), eqsat::InternalError);
  CHECK_THROWS_WITH(g.add(Symbol()), EndsWith(": EGraph::add: an e-node needs an operator symbol"));
  g.rebuild();
  g.check_invariants();
}

TEST_CASE("congruence: f(a) = f(b) after a = b") {
  EGraph g;
  EClassId a = g.add(kA), b = g.add(kB);
  EClassId fa = g.add(kF, 0, {a}), fb = g.add(kF, 0, {b});
  EClassId gfa = g.add(kG, 0, {fa}), gfb = g.add(kG, 0, {fb});
  CHECK(g.find(fa) != g.find(fb));
  CHECK(g.merge(a, b));
  CHECK_FALSE(g.merge(b, a));
  CHECK(g.rebuild() == 2);  // f(a)=f(b), then g(f(a))=g(f(b))
  g.check_invariants();
  CHECK(g.find(fa) == g.find(fb));
  CHECK(g.find(gfa) == g.find(gfb));
  CHECK(g.num_classes() == 3);
  CHECK(g.num_nodes() == 4);  // a, b, f(a), g(f(a)): duplicates are gone
}

TEST_CASE("congruence through a cycle") {
  // x = f(x) makes f(f(x)) equal to x as well.
  EGraph g;
  EClassId x = g.add(kA);
  EClassId fx = g.add(kF, 0, {x});
  EClassId ffx = g.add(kF, 0, {fx});
  EClassId fffx = g.add(kF, 0, {ffx});
  g.merge(x, fx);
  g.rebuild();
  g.check_invariants();
  CHECK(g.find(ffx) == g.find(x));
  CHECK(g.find(fffx) == g.find(x));
  CHECK(g.num_classes() == 1);
  CHECK(g.num_nodes() == 2);  // a and f(class itself)
  auto nodes = g.nodes(x);
  REQUIRE(nodes.size() == 2);
  CHECK(g.node(nodes[1]).children[0] == g.find(x));
}

TEST_CASE("classes, nodes and parents are listed canonically and in order") {
  EGraph g;
  EClassId a = g.add(kA), b = g.add(kB);
  EClassId fab = g.add(kF, 0, {a, b});
  EClassId gb = g.add(kG, 0, {b});
  g.merge(fab, gb);
  g.rebuild();
  std::vector<EClassId> cls(g.classes().begin(), g.classes().end());
  CHECK(std::is_sorted(cls.begin(), cls.end()));
  CHECK(cls.size() == 3);
  auto nodes = g.nodes(gb);
  REQUIRE(nodes.size() == 2);
  CHECK(g.op(nodes[0]) == kF);  // "f" was interned before "g"
  CHECK(g.op(nodes[1]) == kG);
  CHECK(g.parents(b).size() == 2);
  CHECK(g.parents(a).size() == 1);
  CHECK(g.classes_with_op(kF).size() == 1);
  CHECK(g.classes_with_op(kC).empty());
}

TEST_CASE("pruned e-nodes stay in the hash-cons but leave their class") {
  EGraph g;
  EClassId a = g.add(kA);
  EClassId fa = g.add(kF, 0, {a});
  EClassId c = g.add(kC);
  g.merge(fa, c);
  g.rebuild();
  CHECK(g.prune(fa, [](const ENodeRef& n) { return n.is_leaf(); }) == 1);
  g.rebuild();
  g.check_invariants();
  CHECK(g.nodes(fa).size() == 1);
  CHECK(g.num_nodes() == 2);
  CHECK(g.add(kF, 0, {a}) == g.find(c));  // still hash-consed
  CHECK(g.nodes(fa).size() == 1);
}

TEST_CASE("random adds and merges keep the invariants and match a naive closure") {
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    EGraph g;
    NaiveClosure naive;
    std::vector<EClassId> ids;
    const Symbol ops[] = {kF, kG};
    const Symbol leaves[] = {kA, kB, kC};
    int steps = 10 + static_cast<int>(rng() % 60);
    for (int s = 0; s < steps; ++s) {
      unsigned what = rng() % 10;
      if (ids.size() < 2 || what < 3) {
        Symbol leaf = leaves[rng() % 3];
        Payload p = rng() % 2;
        ids.push_back(g.add(leaf, p));
        naive.add(leaf, p, {});
      } else if (what < 8) {
        Symbol op = ops[rng() % 2];
        std::size_t arity = 1 + rng() % 2;
        std::vector<std::size_t> kids;
        std::vector<EClassId> kid_ids;
        for (std::size_t k = 0; k < arity; ++k) {
          kids.push_back(rng() % ids.size());
          kid_ids.push_back(ids[kids.back()]);
        }
        ids.push_back(g.add(op, 0, kid_ids));
        naive.add(op, 0, kids);
      } else {
        std::size_t i = rng() % ids.size(), j = rng() % ids.size();
        g.merge(ids[i], ids[j]);
        naive.unite(i, j);
      }
      if (rng() % 8 == 0) {
        g.rebuild();
        g.check_invariants();
      }
    }
    g.rebuild();
    INFO("seed " << seed);
    REQUIRE_NOTHROW(g.check_invariants());
    naive.close();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      for (std::size_t j = 0; j < ids.size(); ++j) {
        REQUIRE((g.find(ids[i]) == g.find(ids[j])) == (naive.find(i) == naive.find(j)));
      }
    }
  }
}

TEST_CASE("the same calls give the same ids and the same dump") {
  auto build = [] {
    auto g = std::make_unique<EGraph>();
    std::mt19937 rng(7);
    std::vector<EClassId> ids{g->add(kA), g->add(kB)};
    for (int s = 0; s < 200; ++s) {
      if (rng() % 4 == 0) {
        g->merge(ids[rng() % ids.size()], ids[rng() % ids.size()]);
      } else {
        ids.push_back(g->add(kF, rng() % 3, {ids[rng() % ids.size()], ids[rng() % ids.size()]}));
      }
    }
    g->rebuild();
    return g;
  };
  auto g1 = build(), g2 = build();
  CHECK(g1->dump() == g2->dump());
  CHECK(g1->num_classes() == g2->num_classes());
}

TEST_CASE("RecExpr terms load bottom-up and parse errors are located") {
  EGraph g;
  RecExpr e = RecExpr::parse("(f (g a) (g a) b@3)");
  CHECK(e.to_string() == "(f (g a) (g a) b@3)");
  EClassId root = g.add_expr(e);
  CHECK(g.num_nodes() == 4);
  CHECK(g.lookup_expr(e) == root);
  CHECK_FALSE(g.lookup_expr(RecExpr::parse("(f a)")).has_value());
  CHECK_THROWS_WITH(RecExpr::parse("(f a"), "1:1: error: unclosed '('");
  CHECK_THROWS_WITH(RecExpr::parse("(f a@x)"),
                    "1:4: error: bad payload 'x' in 'a@x' (expected an unsigned integer)");
  CHECK_THROWS_WITH(RecExpr::parse("(f) a"), "1:5: error: unexpected text after the expression");
}
