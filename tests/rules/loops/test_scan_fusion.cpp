// scan-fusion and the fusion of extracted loops: independent loops of the
// same length and stop condition end as one loop reading shared sequences
// once; loops of other lengths, other stop conditions or reading each
// other stay apart.
#include "tests/rules/loop_testing.hpp"

#include "rules/loops/scan_fusion.hpp"
#include "rules/loops/scan_fusion_extracted.hpp"
#include "rules/tensor/extract_graph.hpp"

#include "backend/runtime_error.hpp"
#include "egraph/runner.hpp"

#include <fmt/format.h>

using namespace eqsat;
using namespace eqsat::testing;

namespace {

// Optimizes `text`, checks its values against the original graph and
// returns the loops left.
std::vector<ops::TermRef> loops_after(const std::string& text) {
  const ops::Graph g = graph(text);
  rules::OptimizeReport report;
  const ops::Graph out = optimized(g, &report);
  INFO(ops::print_graph(out));
  check_same_values(g, out);
  CHECK(report.cost_after <= report.cost_before);
  return scans_in(out);
}

}  // namespace

TEST_CASE("two loops over the same sequence end as one loop reading it once") {
  const auto loops = loops_after(R"(
    (input xs (f64 100 8)) (input z0 (f64 8))
    (let s1 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (add h (exp x)))))
    (let s2 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (maximum h (exp x)))))
    (output (get 0 s1))
    (output (get 0 s2)))");
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).num_sitsot == 2);
  // exp(x) is computed once, outside (pushed out and shared).
  CHECK_FALSE(contains(loops[0]->operand(0), ops::OpKind::Exp));
}

TEST_CASE("loops of the same n-steps with other layouts fuse") {
  const auto loops = loops_after(R"(
    (input a (f64 3)) (input h0 (f64 2 3)) (input z0 (f64 3))
    (let s1 (scan :n-steps 6 :mit-sot ((h0 :taps (-2 -1))) :non-sequences (a)
      (fn (p q w) (add (mul p 0.5) (mul q w)))))
    (let s2 (scan :n-steps 6 :sit-sot (z0) :non-sequences (a) (fn (z w) (sin (add z w)))))
    (output (add (get 0 s1) (get 0 s2))))");
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).mitsot_taps.size() == 1);
  CHECK(spec_of(loops[0]).num_sitsot == 1);
  CHECK(spec_of(loops[0]).num_nonsequences <= 1);
}

TEST_CASE("loops of different lengths stay apart") {
  CHECK(loops_after(R"(
    (input xs (f64 100 8)) (input ys (f64 50 8)) (input z0 (f64 8))
    (output (get 0 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (add h x)))))
    (output (get 0 (scan :sequences (ys) :sit-sot (z0) (fn (x h) (mul h x))))))")
            .size() == 2);
  CHECK(loops_after(R"(
    (input xs (f64 ? 8)) (input ys (f64 ? 8)) (input z0 (f64 8))
    (output (get 0 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (add h x)))))
    (output (get 0 (scan :sequences (ys) :sit-sot (z0) (fn (x h) (mul h x))))))")
            .size() == 2);
  CHECK(loops_after(R"(
    (input z0 (f64 8))
    (output (get 0 (scan :n-steps 4 :sit-sot (z0) (fn (h) (sin h)))))
    (output (get 0 (scan :n-steps 5 :sit-sot (z0) (fn (h) (cos h))))))")
            .size() == 2);
}

TEST_CASE("loops with different stop conditions stay apart") {
  CHECK(loops_after(R"(
    (input z0 f64)
    (output (get 0 (scan :n-steps 9 :sit-sot (z0) :until true (fn (h) (add h 1.0) (gt h 3.0)))))
    (output (get 0 (scan :n-steps 9 :sit-sot (z0) (fn (h) (mul h 0.5))))))")
            .size() == 2);
  CHECK(loops_after(R"(
    (input z0 f64)
    (output (get 0 (scan :n-steps 9 :sit-sot (z0) :until true (fn (h) (add h 1.0) (gt h 3.0)))))
    (output (get 0 (scan :n-steps 9 :sit-sot (z0) :until true (fn (h) (mul h 0.5) (lt h 0.1))))))")
            .size() == 2);
}

TEST_CASE("until-loops with the same flag fuse") {
  const auto loops = loops_after(R"(
    (input xs (f64 20)) (input z0 f64)
    (output (get 0 (scan :sequences (xs) :sit-sot (z0) :until true
      (fn (x h) (add h x) (gt x 0.5)))))
    (output (get 0 (scan :sequences (xs) :sit-sot (z0) :until true
      (fn (x h) (mul h x) (gt x 0.5))))))");
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).until);
}

// The last value of s1 must not be a sum (scan-to-reduction would compute
// it without s1, and the loops could then fuse): tanh keeps it a loop.
TEST_CASE("a loop reading another loop's output is not fused with it") {
  CHECK(loops_after(R"(
    (input xs (f64 30 4)) (input z0 (f64 4))
    (let s1 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (add h x))))
    (let s2 (scan :sequences ((get 0 s1)) :sit-sot (z0) (fn (y h) (mul h y))))
    (output (get 0 s2)))")
            .size() == 2);
  CHECK(loops_after(R"(
    (input xs (f64 30 4)) (input z0 (f64 4))
    (let s1 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (tanh (add h x)))))
    (let s2 (scan :sequences (xs) :sit-sot (z0) :non-sequences ((index (get 0 s1) -1))
      (fn (x h l) (mul h (add x l)))))
    (output (get 0 s1)) (output (get 0 s2)))")
            .size() == 2);
}

TEST_CASE("loops nested in a loop body fuse") {
  const auto loops = loops_after(R"(
    (input xs (f64 5 3)) (input h0 (f64 3))
    (output (get 0 (scan :sequences (xs) :sit-sot (h0)
      (fn (x h)
        (add (index (get 0 (scan :n-steps 4 :sit-sot (h) :non-sequences (x) (fn (g v) (sin (add g v))))) -1)
             (index (get 0 (scan :n-steps 4 :sit-sot (x) :non-sequences (h) (fn (g v) (cos (mul g v))))) -1)))))))");
  CHECK(loops.size() == 2);  // the outer loop and one inner loop
}

TEST_CASE("loops in a def fuse") {
  const auto loops = loops_after(R"(
    (input xs (f64 40 3)) (input z0 (f64 3))
    (def f (fn ((s (f64 40 3)) (z (f64 3)))
      (add (get 0 (scan :sequences (s) :sit-sot (z) (fn (x h) (add h x))))
           (get 0 (scan :sequences (s) :sit-sot (z) (fn (x h) (mul h (cos x))))))))
    (output (call f xs z0)))");
  CHECK(loops.size() == 1);
}

TEST_CASE("the forward and the reverse loops of two gradients fuse") {
  const ops::Graph g = graph(R"(
    (input xs (f64 12 3)) (input h0 (f64 3)) (input w (f64 3))
    (let s1 (scan :sequences (xs) :sit-sot (h0) :non-sequences (w) (fn (x h v) (add (mul h v) x))))
    (let s2 (scan :sequences (xs) :sit-sot (h0) :non-sequences (w) (fn (x h v) (sub (mul h x) v))))
    (output (grad (add (sum (get 0 s1)) (sum (get 0 s2))) w)))");
  static const rules::RuleProgram kWithout = default_rules_without({"scan-fusion"});
  const ops::Graph before = rules::optimize(g, kWithout);
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(before) << "\n" << ops::print_graph(out));
  check_same_values(before, out);
  // Without fusion: the two forward loops and two reverse ones, less the
  // forward loop of s2 whose history its gradient never reads.
  CHECK(scans_in(before).size() == 3);
  CHECK(scans_in(out).size() == 2);
}

TEST_CASE("the applier adds the fused loop beside the old ones") {
  const ops::Graph g = graph(R"(
    (input xs (f64 10 2)) (input z0 (f64 2))
    (output (get 0 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (add h x)))))
    (output (get 0 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (mul h x))))))");
  rules::TensorEGraph eg;
  std::vector<egraph::EClassId> roots;
  for (const auto& o : g.outputs) roots.push_back(eg.add_term(o.term));
  eg.egraph().rebuild();
  egraph::Runner runner(eg.egraph(), {});
  runner.run(std::vector<egraph::Rewrite>{rules::make_scan_fusion(eg)});
  std::size_t fused = 0, scans = 0;
  for (egraph::EClassId c : eg.egraph().classes())
    for (egraph::ENodeId n : eg.egraph().nodes(c))
      if (eg.kind(n) == ops::OpKind::Scan) {
        ++scans;
        fused += eg.attrs(n).get<ops::ScanSpec>(ops::AttrKey::Scan).num_sitsot == 2;
      }
  CHECK(scans == 3);
  CHECK(fused == 1);
  // Both outputs are now also read from the fused loop, in one class each.
  CHECK(eg.egraph().find(roots[0]) != eg.egraph().find(roots[1]));
  const auto best = rules::extract_terms(eg, roots, backend::CostModel{});
  CHECK(best.roots.size() == 2);
}

TEST_CASE("a state both loops compute alike is kept once in the fused loop") {
  const auto loops = loops_after(R"(
    (input x0 (f64 4)) (input y0 (f64 4))
    (let s1 (scan :n-steps 7 :sit-sot (x0 y0) (fn (x y) (sin (add x 1.0)) (mul y (cos x)))))
    (let s2 (scan :n-steps 7 :sit-sot (x0) (fn (x) (sin (add x 1.0)))))
    (output (get 1 s1)) (output (exp (get 0 s2))))");
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).num_sitsot == 2);
  const auto apart = loops_after(R"(
    (input x0 (f64 4)) (input y0 (f64 4))
    (let s1 (scan :n-steps 7 :sit-sot (x0 y0) (fn (x y) (sin (add x 1.0)) (mul y (cos x)))))
    (let s2 (scan :n-steps 7 :sit-sot (x0) (fn (x) (sin (add x 2.0)))))
    (output (get 1 s1)) (output (exp (get 0 s2))))");
  REQUIRE(apart.size() == 1);
  CHECK(spec_of(apart[0]).num_sitsot == 3);
}

TEST_CASE("three loops of the same length end as one loop") {
  const auto loops = loops_after(R"(
    (input xs (f64 25 3)) (input ys (f64 25 3)) (input z0 (f64 3))
    (output (get 0 (scan :sequences (xs) :sit-sot (z0) (fn (x h) (add h x)))))
    (output (get 0 (scan :sequences (xs ys) :sit-sot (z0) (fn (x y h) (mul h (sub x y))))))
    (output (get 0 (scan :sequences (ys) :n-steps 25 :sit-sot (z0) (fn (y h) (maximum h y))))))");
  REQUIRE(loops.size() == 1);
  CHECK(spec_of(loops[0]).num_sitsot == 3);
  // xs and ys read once each, and x - y pushed out as a sequence of its own.
  CHECK(spec_of(loops[0]).sequence_taps.size() == 3);
}

namespace {

// Output `k` of `g` alone, run on `inputs`: true when it runs.
bool output_runs(const ops::Graph& g, std::size_t k, const std::vector<ops::Array>& inputs) {
  ops::Graph one = g;
  one.outputs = {g.outputs[k]};
  try {
    backend::compile(one).run(inputs);
    return true;
  } catch (const backend::RuntimeError&) {
    return false;
  }
}

}  // namespace

TEST_CASE("fusion adds no failure to a loop that cannot fail") {
  // Loop b fails on its operand (an index out of range) or in its body;
  // fused, loop a's output would fail with it (issue 25, seed 31571 of the
  // long corner run: two loops of 0 steps).
  const std::pair<const char*, const char*> cases[] = {
      {"3", "(scan :n-steps 3 :sit-sot ((index w k)) (fn (h) (cos h)))"},
      {"3", "(scan :n-steps 3 :sit-sot (z) :non-sequences (w k) (fn (h v i) (add h (index v i))))"},
      {"0", "(scan :n-steps 0 :sit-sot ((index w k)) (fn (h) (cos h)))"},
  };
  for (const auto& [steps, b] : cases) {
    INFO(b);
    const ops::Graph g = graph(fmt::format(R"(
      (input z (f64 3)) (input w (f64 3 3)) (input k i64)
      (output (get 0 (scan :n-steps {} :sit-sot (z) (fn (h) (sin h)))))
      (output (get 0 {})))",
                                           steps, b));
    const ops::Graph out = optimized(g);
    INFO(ops::print_graph(out));
    const std::vector<ops::Array> inputs{ops::Array::filled(ops::DType::F64, {3}, 0.5),
                                         ops::Array::filled(ops::DType::F64, {3, 3}, 0.25),
                                         ops::Array::scalar(ops::DType::I64, 7)};
    CHECK(output_runs(out, 0, inputs));
    CHECK_FALSE(output_runs(out, 1, inputs));
  }
}

TEST_CASE("loops failing alike fuse: the same run-time step count") {
  const ops::Graph g = graph(R"(
    (input n i64) (input z (f64 3))
    (output (get 0 (scan :n-steps n :sit-sot (z) (fn (h) (sin h)))))
    (output (get 0 (scan :n-steps n :sit-sot (z) (fn (h) (cos (mul h 2.0)))))))");
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(out));
  CHECK(scans_in(out).size() == 1);
}

TEST_CASE("extracted loops fuse only when neither adds a failure to the other") {
  const auto fused = [](const std::string& b) {
    const ops::Graph g = graph(R"(
      (input z (f64 3)) (input w (f64 3 3)) (input k i64)
      (output (get 0 (scan :n-steps 3 :sit-sot (z) (fn (h) (sin h)))))
      (output (get 0 )" + b + "))");
    std::vector<ops::TermRef> roots;
    for (const auto& o : g.outputs) roots.push_back(o.term);
    const auto out = rules::fuse_extracted_loops(roots, backend::CostModel{});
    ops::Graph after = g;
    for (std::size_t i = 0; i < out.size(); ++i) after.outputs[i].term = out[i];
    return scans_in(after).size() == 1;
  };
  CHECK(fused("(scan :n-steps 3 :sit-sot (z) (fn (h) (cos h)))"));
  CHECK_FALSE(fused("(scan :n-steps 3 :sit-sot ((index w k)) (fn (h) (cos h)))"));
  CHECK_FALSE(fused(
      "(scan :n-steps 3 :sit-sot (z) :non-sequences (w k) (fn (h v i) (add h (index v i))))"));
}
