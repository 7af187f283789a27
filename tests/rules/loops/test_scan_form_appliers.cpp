// The scan appliers that declare `depends_only_on_form` are run once per
// loop form, not once per iteration: what they add must not depend on who
// reads the loop. Each runs once on a loop whose readers are added before
// the run or after it; the e-graphs must come out the same.
// scan-remove-unused, which reads the readers, is the control that shows
// the check can tell.
#include "tests/rules/loop_testing.hpp"

using namespace eqsat;
using namespace eqsat::testing;

namespace {

// A loop with work for each form-only applier: a non-sequence expression
// to hoist, sequence work to push out, an elementwise nit-sot, and a
// sequence passed twice.
const std::string kLoop = R"(
  (input xs (f64 30 4)) (input w (f64 4)) (input h0 (f64 4))
  (let s (scan :sequences (xs xs) :sit-sot (h0) :nit-sot 1 :non-sequences (w)
    (fn (x y h v) (add h (mul (sin x) (exp v))) (mul y 2.0)))))";

const std::string kReaders = R"(
  (output (get 0 s)) (output (index (get 0 s) -1))
  (output (sum (get 1 s))) (output (slice (get 1 s) :stop 3)))";

// The e-graph (classes, e-nodes) after one run of `applier` on the loop
// of kLoop with the readers of kReaders, added before the run or after it.
// An applier that ignores the readers adds the same terms and merges
// either way, and the congruence closure is the same.
std::pair<std::size_t, std::size_t> after(std::string_view applier, bool readers_first) {
  const ops::Graph g = graph(kLoop + kReaders);
  rules::TensorEGraph eg;
  auto add_readers = [&] {
    for (const auto& o : g.outputs) eg.add_term(o.term);
  };
  eg.add_term(g.outputs.at(0).term);
  if (readers_first) add_readers();
  std::vector<egraph::Rewrite> rewrites{rules::find_builtin_applier(applier)->make(eg)};
  egraph::Runner(eg.egraph(), {.iter_limit = 1}).run(rewrites);
  if (!readers_first) add_readers();
  eg.egraph().rebuild();
  return {eg.egraph().num_classes(), eg.egraph().num_nodes()};
}

// E-nodes one run of `applier` adds to the loop's graph alone.
std::size_t added_by(std::string_view applier) {
  const ops::Graph g = graph(kLoop + "(output (get 0 s))");
  rules::TensorEGraph eg;
  eg.add_term(g.outputs.at(0).term);
  eg.egraph().rebuild();
  const std::size_t before = eg.egraph().num_nodes();
  std::vector<egraph::Rewrite> rewrites{rules::find_builtin_applier(applier)->make(eg)};
  egraph::Runner(eg.egraph(), {.iter_limit = 1}).run(rewrites);
  return eg.egraph().num_nodes() - before;
}

}  // namespace

TEST_CASE("form-only scan appliers add the same whoever reads the loop") {
  for (std::string_view applier : {"scan-hoist-invariants", "scan-push-out-seqs",
                                   "scan-push-out-nitsots", "scan-merge-sequences"}) {
    INFO(applier);
    CHECK(added_by(applier) > 0);  // the loop gives each applier work
    CHECK(after(applier, true) == after(applier, false));
  }
}

TEST_CASE("an applier reading the loop's readers adds different things per readers") {
  CHECK(after("scan-remove-unused", true) != after("scan-remove-unused", false));
}
