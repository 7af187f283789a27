#include "evaluate_closed.hpp"

#include "program.hpp"
#include "runtime_error.hpp"

namespace eqsat::backend {

std::optional<ops::Array> evaluate_closed(ops::TermRef t) {
  if (t->is_tuple() || t->uses_input() || !t->free_nominals().empty()) return std::nullopt;
  if (const ops::Array* a = t->const_value()) return *a;
  ops::Graph g;
  g.outputs.push_back({"value", t});
  try {
    Program p = compile(g);
    return p.run({}).at(0);
  } catch (const RuntimeError&) {
    return std::nullopt;
  }
}

}  // namespace eqsat::backend
