// Fuzz target: the optimize pipeline on parsed graphs. A graph that parses
// is optimized with the shipped rules; the result must keep every output's
// type, print and parse back, and — when its planned memory is small — run
// on the executor with only RuntimeErrors for bad values. Never a crash.
#include "backend/memory_plan.hpp"
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "egraph/extract/extraction.hpp"
#include "ops/diagnostic.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "rules/pipeline/optimize.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace {
// True when a scan may run many steps (an integer constant operand over
// 4096, e.g. its :n-steps): legitimate work, but too slow for fuzzing.
bool has_long_loop(const eqsat::ops::Graph& graph) {
  using namespace eqsat::ops;
  std::vector<TermRef> stack;
  std::unordered_set<TermRef> seen;
  for (const auto& o : graph.outputs) stack.push_back(o.term);
  while (!stack.empty()) {
    const TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    if (t->kind() == OpKind::Scan)
      for (TermRef o : t->operands())
        if (const Array* v = o->const_value(); v && v->size() == 1 && v->element(0) > 4096)
          return true;
    for (TermRef o : t->operands()) stack.push_back(o);
  }
  return false;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eqsat;
  static const rules::RuleProgram program = rules::load_default_rules();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ops::Graph graph;
  try {
    graph = ops::parse_graph(text, "fuzz.eg", ".");
  } catch (const ops::DiagnosticError&) {
    return 0;
  }
  ops::Graph best;
  try {
    best = rules::optimize(graph, program);
  } catch (const egraph::ExtractionError&) {
    return 0;  // reported to users as "no acyclic term"
  } catch (const ops::DiagnosticError&) {
    return 0;  // a located refusal (a grad that cannot be expanded)
  }
  if (best.outputs.size() != graph.outputs.size()) std::abort();
  for (std::size_t i = 0; i < best.outputs.size(); ++i)
    if (!compatible(best.outputs[i].term->tensor_type(), graph.outputs[i].term->tensor_type()))
      std::abort();
  ops::parse_graph(ops::print_graph(best), "best.eg", ".");
  // Run it on small inputs (unknown dims 2), when the plan says it is small.
  std::vector<ops::TensorType> types;
  for (ops::TermRef in : best.inputs) {
    ops::TensorType t = in->tensor_type();
    for (auto& d : t.dims)
      if (d == ops::kUnknownDim) d = 2;
    types.push_back(t);
  }
  if (has_long_loop(best) || backend::planned_bytes(best, types) > (std::int64_t{1} << 24))
    return 0;
  std::vector<ops::Array> inputs;
  for (const auto& t : types) inputs.push_back(ops::Array::filled(t.dtype, t.dims, 0.5));
  try {
    backend::compile(best).run(std::move(inputs));
  } catch (const backend::RuntimeError&) {
  } catch (const std::bad_alloc&) {  // a size decided at run time
  }
  return 0;
}
