// The one traversal of terms: operands first, each term once, bodies
// entered or not, no recursion.
#include "ops/post_order.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <unordered_set>

using namespace eqsat::ops;

namespace {
const TensorType kScalar{DType::F64, {}};

// The order a recursive walk finishes terms in, the reference.
void finish_order(TermRef t, Bodies bodies, std::unordered_set<TermRef>& seen,
                  std::vector<TermRef>& out) {
  if (!seen.insert(t).second) return;
  if (bodies == Bodies::Enter || t->kind() != OpKind::Fn)
    for (TermRef o : t->operands()) finish_order(o, bodies, seen, out);
  out.push_back(t);
}

std::vector<TermRef> walk(std::span<const TermRef> roots, Bodies bodies) {
  std::vector<TermRef> out;
  for_each_post_order(roots, bodies, [&](TermRef t) { out.push_back(t); });
  return out;
}

// A scan summing xs, its body (fn (acc x) (add acc (exp x))).
TermRef running_sum(TermRef xs) {
  TermRef body = Term::fn({kScalar, kScalar},
                          {Term::make(OpKind::Add, {},
                                      {Term::nominal(0, kScalar),
                                       Term::make(OpKind::Exp, {}, {Term::nominal(1, kScalar)})})});
  ScanSpec spec;
  spec.sequence_taps = {{0}};
  spec.num_sitsot = 1;
  return Term::make(OpKind::Scan, {{AttrKey::Scan, spec}},
                    {body, xs, Term::scalar(DType::F64, 0.0)});
}
}  // namespace

TEST_CASE("random DAGs are walked in the order a recursive walk finishes them") {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<TermRef> pool{Term::input("a", kScalar), Term::input("b", kScalar)};
    for (int i = 0; i < 30; ++i) {
      auto pick = [&] {
        return pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)];
      };
      pool.push_back(rng() % 3 == 0 ? Term::make(OpKind::Exp, {}, {pick()})
                                    : Term::make(OpKind::Mul, {}, {pick(), pick()}));
    }
    const std::vector<TermRef> roots{pool.back(), pool[pool.size() / 2], pool.back()};
    std::unordered_set<TermRef> seen;
    std::vector<TermRef> expected;
    for (TermRef r : roots) finish_order(r, Bodies::Enter, seen, expected);
    CHECK(walk(roots, Bodies::Enter) == expected);
  }
}

TEST_CASE("a shared term is visited once and after its operands") {
  TermRef x = Term::input("x", kScalar);
  TermRef e = Term::make(OpKind::Exp, {}, {x});
  TermRef m = Term::make(OpKind::Mul, {}, {e, e});
  const std::vector<TermRef> roots{m, e};
  CHECK(walk(roots, Bodies::Enter) == std::vector<TermRef>{x, e, m});
}

TEST_CASE("bodies are entered or visited as leaves") {
  TermRef xs = Term::input("xs", {DType::F64, {4}});
  TermRef scan = running_sum(xs);
  TermRef fn = scan->operand(0);
  const std::vector<TermRef> roots{scan};
  const std::vector<TermRef> skip = walk(roots, Bodies::Skip);
  CHECK(skip.size() == 4);  // fn, xs, 0, scan
  CHECK(skip.front() == fn);
  CHECK(skip.back() == scan);
  const std::vector<TermRef> enter = walk(roots, Bodies::Enter);
  std::unordered_set<TermRef> seen;
  std::vector<TermRef> expected;
  finish_order(scan, Bodies::Enter, seen, expected);
  CHECK(enter == expected);
  CHECK(enter.size() == 8);  // nominal 0, nominal 1, exp, add, fn, xs, 0, scan
  CHECK(std::ranges::count(enter, OpKind::Nominal, [](TermRef t) { return t->kind(); }) == 2);
}

TEST_CASE("enter is asked in pre-order and a refused term is a leaf") {
  TermRef x = Term::input("x", kScalar);
  TermRef y = Term::input("y", kScalar);
  TermRef a = Term::make(OpKind::Exp, {}, {x});
  TermRef b = Term::make(OpKind::Log, {}, {y});
  TermRef root = Term::make(OpKind::Add, {}, {a, b});
  std::vector<TermRef> reached, visited;
  for_each_post_order(
      root, Bodies::Enter, [&](TermRef t) { visited.push_back(t); },
      [&](TermRef t) {
        reached.push_back(t);
        return t != b;
      });
  CHECK(reached == std::vector<TermRef>{root, a, x, b});
  CHECK(visited == std::vector<TermRef>{x, a, b, root});
}

TEST_CASE("a chain 30000 terms deep is walked without recursion") {
  TermRef t = Term::input("x", kScalar);
  for (int i = 0; i < 30000; ++i) t = Term::make(OpKind::Neg, {}, {t});
  std::size_t n = 0;
  TermRef first = nullptr;
  for_each_post_order(t, Bodies::Skip, [&](TermRef u) {
    if (!first) first = u;
    ++n;
  });
  CHECK(n == 30001);
  CHECK(first->kind() == OpKind::Input);
}
