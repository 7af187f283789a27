// Loop rewrite benchmark (issue 9): what push-out/vectorization and loop
// fusion buy at run time. Each workload is compiled once per variant and
// run several times (best time kept); both variants run in this process on
// the same inputs, and their outputs are checked to agree.
//   map     a 10^6-step elementwise map exp(x_t * a) + x_t as a scan:
//           the loop as written against the optimized graph (vectorized)
//   fusion  two loops over one 10^6 x 8 sequence: optimized without
//           scan-fusion (two loops) against the default rules (one loop)
// Prints a Markdown table.
//
//   bench_loop_rewrites [--reps N]
#include "rules/lang/builtin_appliers.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/lang/shipped_rules.hpp"

#include "backend/program.hpp"
#include "ops/graph_parser.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

using namespace eqsat;

namespace {

constexpr const char* kMap = R"(
(input xs (f64 1000000))
(input a f64)
(output (get 0 (scan :sequences (xs) :nit-sot 1 :non-sequences (a)
  (fn (x w) (add (exp (mul x w)) x)))))
)";

constexpr const char* kFusion = R"(
(input xs (f64 1000000 8))
(input z0 (f64 8))
(let s1 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (add (mul h 0.5) x))))
(let s2 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (maximum h x))))
(output (index (get 0 s1) -1))
(output (index (get 0 s2) -1))
)";

// The shipped rules without the `use` lines of `applier`.
rules::RuleProgram rules_without(const std::string& applier) {
  std::vector<rules::RuleSource> sources;
  for (const rules::RuleSource& shipped : rules::shipped_rule_sources()) {
    std::istringstream in(shipped.text);
    std::ostringstream kept;
    for (std::string line; std::getline(in, line);)
      if (line.find("(use " + applier + " ") == std::string::npos) kept << line << '\n';
    sources.push_back({shipped.file, kept.str(), shipped.default_ruleset});
  }
  return rules::parse_rules(sources, rules::builtin_applier_names());
}

std::size_t loops(const ops::Graph& g) {
  std::vector<ops::TermRef> stack;
  for (const auto& o : g.outputs) stack.push_back(o.term);
  std::unordered_set<ops::TermRef> seen;
  std::size_t n = 0;
  while (!stack.empty()) {
    const ops::TermRef t = stack.back();
    stack.pop_back();
    if (!seen.insert(t).second) continue;
    n += t->kind() == ops::OpKind::Scan;
    for (ops::TermRef o : t->operands()) stack.push_back(o);
  }
  return n;
}

std::vector<ops::Array> inputs_for(const ops::Graph& g) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<ops::Array> out;
  for (ops::TermRef in : g.inputs) {
    ops::Array a(ops::DType::F64, in->tensor_type().dims);
    for (double& v : a.span<double>()) v = u(rng);
    out.push_back(std::move(a));
  }
  return out;
}

struct Timed {
  double seconds;
  std::vector<ops::Array> outputs;
};

Timed best_of(const ops::Graph& g, const std::vector<ops::Array>& inputs, int reps) {
  backend::Program p = backend::compile(g);
  Timed t{1e300, p.run(inputs)};  // warm-up
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto out = p.run(inputs);
    t.seconds = std::min(
        t.seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return t;
}

void check_agree(const Timed& a, const Timed& b) {
  for (std::size_t k = 0; k < a.outputs.size(); ++k)
    for (std::int64_t i = 0; i < a.outputs[k].size(); ++i) {
      const double x = a.outputs[k].element(i), y = b.outputs[k].element(i);
      if (std::abs(x - y) > 1e-9 * (1 + std::abs(x)))
        throw std::runtime_error(fmt::format("outputs differ at {}: {} vs {}", i, x, y));
    }
}

void row(const std::string& name, const ops::Graph& base, const std::string& base_name,
         const ops::Graph& opt, int reps) {
  const auto inputs = inputs_for(base);
  const Timed b = best_of(base, inputs, reps);
  const Timed o = best_of(opt, inputs, reps);
  check_agree(b, o);
  fmt::print("| {} | {} ({} loops) | {:.4f} | optimized ({} loops) | {:.4f} | {:.1f}x |\n", name,
             base_name, loops(base), b.seconds, loops(opt), o.seconds, b.seconds / o.seconds);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
  const rules::RuleProgram all = rules::load_default_rules();
  fmt::print("| workload | baseline | seconds | eqsat | seconds | speed-up |\n");
  fmt::print("| --- | --- | --- | --- | --- | --- |\n");
  const ops::Graph map = ops::parse_graph(kMap, "map.eg", ".");
  row("map, 10^6 steps", map, "as written", rules::optimize(map, all), reps);
  const ops::Graph fusion = ops::parse_graph(kFusion, "fusion.eg", ".");
  row("two loops, 10^6 x 8", rules::optimize(fusion, rules_without("scan-fusion")),
      "without scan-fusion", rules::optimize(fusion, all), reps);
  return 0;
}
