// The one traversal of hash-consed terms: every distinct term under some
// roots, each after its operands, without recursion (a graph of 30,000
// chained `let`s is a term 30,000 deep). Walks that need operands first
// (loading into an e-graph, printing lets, differentiating, rebuilding
// terms bottom-up) go through it instead of keeping a stack of their own.
//
//   std::size_t n = 0;
//   for_each_post_order(roots, Bodies::Skip, [&](TermRef t) { n += t->arity(); });
#pragma once

#include "term.hpp"

#include <absl/container/flat_hash_set.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace eqsat::ops {

// Whether a walk goes into the outputs of `fn` terms (the bodies of `scan`
// and `call`). With Skip a `fn` is visited as a leaf: bodies are closed, so
// most walks of an outer graph have nothing to do inside them.
enum class Bodies : std::uint8_t { Enter, Skip };

// The default of `for_each_post_order`'s `enter`: go into every term.
struct EnterAll {
  bool operator()(TermRef) const { return true; }
};

// Calls `visit(t)` once for each distinct term reachable from `roots`, after
// all of t's operands: the order in which a left-to-right recursive walk
// finishes them (roots in order, a shared term at its first finish).
// `enter(t)` is called once per term when it is first reached (so in
// pre-order); returning false makes t a leaf of this walk (visited, its
// operands not walked through it): a term whose result is known already,
// or a search that found what it looked for.
template <class Visit, class Enter = EnterAll>
void for_each_post_order(std::span<const TermRef> roots, Bodies bodies, Visit&& visit,
                         Enter&& enter = {}) {
  struct Frame {
    TermRef t;
    std::size_t next;
    bool into;
  };
  absl::flat_hash_set<TermRef> seen;
  std::vector<Frame> stack;
  auto reach = [&](TermRef t) {
    if (!seen.insert(t).second) return;
    const bool body = bodies == Bodies::Skip && t->kind() == OpKind::Fn;
    stack.push_back({t, 0, !body && enter(t)});
  };
  for (TermRef root : roots) {
    reach(root);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.into && f.next < f.t->arity()) {
        reach(f.t->operand(f.next++));
        continue;
      }
      const TermRef t = f.t;
      stack.pop_back();
      visit(t);
    }
  }
}

template <class Visit, class Enter = EnterAll>
void for_each_post_order(TermRef root, Bodies bodies, Visit&& visit, Enter&& enter = {}) {
  for_each_post_order(std::span<const TermRef>(&root, 1), bodies, std::forward<Visit>(visit),
                      std::forward<Enter>(enter));
}

}  // namespace eqsat::ops
