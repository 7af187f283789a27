// Test helper: the op-by-op form of an expression, what a fused group
// must compute bit for bit.
#pragma once

#include "graph_builder.hpp"

#include <algorithm>
#include <vector>

namespace eqsat::test {

// The same graph with every intermediate value an output: nothing fuses,
// so the last output is the op-by-op result.
inline ops::Graph unfused(std::vector<TermRef> inputs, TermRef root) {
  std::vector<TermRef> all;
  std::vector<TermRef> todo{root};
  while (!todo.empty()) {
    TermRef t = todo.back();
    todo.pop_back();
    if (t->kind() == OpKind::Input || t->kind() == OpKind::Const ||
        std::ranges::find(all, t) != all.end())
      continue;
    all.push_back(t);
    for (TermRef o : t->operands()) todo.push_back(o);
  }
  std::ranges::reverse(all);
  all.push_back(root);
  return graph(std::move(inputs), all);
}

}  // namespace eqsat::test
