// Random `:until` loops (rules/autodiff/scan_pullback.cpp and the loop
// rewrites of rules/loops/): each graph's loop stops at a step drawn by the
// seed, 0 steps included (one loop in four has no `:until`, one in three
// carries a mit-sot); the cost reads its history through
// run-time negative indices, set_index, a call and casts. Optimized, the graph computes what it
// computes as written, and its gradients (with and without `:checkpoint`) equal finite differences.
#include "tests/rules/gradient_check.hpp"

#include "rules/autodiff/gradient.hpp"

#include "backend/runtime_error.hpp"
#include "ops/graph_printer.hpp"

#include <fmt/format.h>

using namespace eqsat;
using namespace eqsat::test;

namespace {

template <class T>
const T& pick(std::mt19937_64& rng, const std::vector<T>& xs) {
  return xs[rng() % xs.size()];
}

// One random graph: inputs x, a (f64 3), k and j (i64), the lets, and the
// float scalar cost read by every case.
struct RandomLoop {
  std::string head, cost;
};

RandomLoop random_loop(std::mt19937_64& rng) {
  const int bound = pick<int>(rng, {0, 1, 2, 4, 7});
  const int stop_at = 1 + static_cast<int>(rng() % 6);  // may exceed the bound
  const std::string next =
      pick<std::string>(rng, {"(tanh (add (mul h 0.9) a_))", "(sin (mul h a_))",
                              "(add (mul h 0.5) (mul (cast (add i 1) :dtype f64) a_))",
                              "(tanh (mul (add h 1.0) (mul a_ (cast (ge i 1) :dtype f64))))"});
  // Stop on the counter, or on the state (far from its threshold's edge
  // for these inputs' range, so finite differences keep the same steps).
  const std::string stop =
      rng() % 3 == 0 ? "(gt (sum (abs h)) 2.5)" : fmt::format("(ge (add i 1) {})", stop_at);
  const bool nitsot = rng() % 2 == 0;
  // One loop in four runs its whole bound (no :until), for comparison.
  const bool until = rng() % 4 != 0;
  // One in three carries its state as a mit-sot reading two steps back.
  const bool mitsot = rng() % 3 == 0;
  const std::string slots =
      mitsot ? ":mit-sot (((stack v (mul v 0.5) :axis 0) :taps (-2 -1))) :sit-sot ((const i64 (0)))"
             : ":sit-sot ((const i64 (0)) v)";
  const std::string body = mitsot ? "(fn (hm2 h i a_) (add (mul hm2 0.3) " + next + ") (add i 1)"
                                  : "(fn (i h a_) (add i 1) " + next;
  RandomLoop r;
  r.head = fmt::format(
      "(input x (f64 3)) (input a (f64 3)) (input k i64) (input j i64)\n"
      "(def f (fn ((p (f64 ? 3)) (q (f64 3))) (mul (sin (mul p 1.5)) q)))\n"
      "(let v (tanh x))\n"
      "(let s (scan :n-steps {} {}{} :non-sequences (a){}\n"
      "  {}{}{})))\n"
      "(let hs (get {} s))\n"
      "(let cnt (get {} s))\n"
      "(let hist (concat (expand_dims v :axis 0) hs))\n"
      "(let steps (cast cnt :dtype f64))\n",
      bound, slots, nitsot ? " :nit-sot 1" : "", until ? " :until true" : "", body,
      nitsot ? " (mul h h)" : "", until ? " " + stop : "", mitsot ? 0 : 1, mitsot ? 1 : 0);
  std::vector<std::string> terms{
      "(sum (index hist k))",
      "(sum (mul (index hist -1) a))",
      "(sum (set_index (tanh x) 0 (sum hs)))",
      "(sum (call f hs a))",
      "(sum (mul steps (sum a)))",
      "(sum (call f (set_index hist -1 (mul (index hist 0) 2.0)) x))",
  };
  if (nitsot) terms.push_back("(sum (sin (get 2 s)))");
  std::shuffle(terms.begin(), terms.end(), rng);
  const std::size_t n = 2 + rng() % 3;
  r.cost = terms[0];
  for (std::size_t t = 1; t < n; ++t) r.cost = "(add " + r.cost + " " + terms[t] + ")";
  return r;
}

// The number of rows of `hist` (steps run + 1) at `inputs`.
std::int64_t history_rows(const std::string& head, const std::vector<ops::Array>& inputs) {
  return run1(graph(head + "(output hist)"), inputs).shape()[0];
}

}  // namespace

TEST_CASE("random until-loops: optimized equals the written graph, gradients finite differences",
          "[grad][until][property]") {
  int zero_steps = 0, checked = 0;
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    std::mt19937_64 rng(seed);
    const RandomLoop r = random_loop(rng);
    const ops::Graph cost = graph(r.head + "(output c " + r.cost + ")");
    std::vector<ops::Array> inputs{random_array(cost.inputs[0]->tensor_type(), rng),
                                   random_array(cost.inputs[1]->tensor_type(), rng),
                                   ops::Array::filled(ops::DType::I64, {}, -1),
                                   ops::Array::filled(ops::DType::I64, {}, 0)};
    const std::int64_t rows = history_rows(r.head, inputs), steps = rows - 1;
    zero_steps += steps == 0;
    // A run-time negative index anywhere in the history, and one into the
    // loop's own output from one past either end (out of range: the read
    // fails, optimized as written).
    const auto k = -1 - static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(rows));
    const auto j =
        -steps - 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(2 * steps + 2));
    inputs[2] = ops::Array::filled(ops::DType::I64, {}, static_cast<double>(k));
    inputs[3] = ops::Array::filled(ops::DType::I64, {}, static_cast<double>(j));
    const bool j_in_range = j >= -steps && j < steps;
    INFO("seed " << seed << "\n" << r.head << "cost " << r.cost << "\nk = " << k << ", j = " << j);
    // The cost and the read at k, optimized and as written; then the loop
    // read at j alone (so scan-save-mem may cut it).
    const ops::Graph values =
        graph(r.head + "(output c " + r.cost + ")\n(output at (index hist k))");
    const ops::Graph opt_values = rules::optimize(values, shipped_rules());
    INFO("optimized:\n" << ops::print_graph(opt_values));
    const auto want = backend::compile(values).run(inputs);
    const auto got = backend::compile(opt_values).run(inputs);
    for (std::size_t o = 0; o < want.size(); ++o) check_close(want[o], got[o], 1e-9);
    const ops::Graph read_j =
        graph(r.head + "(output c 0.0)\n(output at 0.0)\n(output atj (index hs j))");
    const ops::Graph opt_read_j = rules::optimize(read_j, shipped_rules());
    INFO("optimized:\n" << ops::print_graph(opt_read_j));
    auto written = backend::compile(read_j), optimized = backend::compile(opt_read_j);
    if (j_in_range) {
      check_close(written.run(inputs)[2], optimized.run(inputs)[2], 1e-12);
    } else {
      std::string error;
      try {
        written.run(inputs);
      } catch (const backend::RuntimeError& e) {
        error = e.what();
      }
      CHECK_THAT(error, Catch::StartsWith("t.eg:12:13: error: index: "));
      CHECK_THROWS_WITH(optimized.run(inputs), error);
    }
    const std::string cost_j =
        j_in_range ? "(add " + r.cost + " (sum (sin (index hs j))))" : r.cost;
    const ops::Graph cost_graph = graph(r.head + "(output c " + cost_j + ")");
    for (std::size_t w : {0, 1}) {
      const std::string name(1, "xa"[w]);
      const ops::Graph opt = rules::optimize(graph(r.head + "(output (grad " + cost_j + " " + name +
                                                   (w == 1 ? " :checkpoint 2" : "") + "))"),
                                             shipped_rules());
      INFO("wrt " << name << ", optimized:\n" << ops::print_graph(opt));
      REQUIRE_FALSE(has_grad(opt.outputs[0].term));
      check_close(finite_difference(cost_graph, inputs, w), run1(opt, inputs), 1e-5);
      ++checked;
    }
  }
  CHECK(checked == 128);
  CHECK(zero_steps >= 5);
}
