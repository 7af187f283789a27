// scan-push-out-seqs: body work that reads only sequence elements and
// non-sequences moves out of the loop as a new sequence, computed on whole
// sequences; work reading a state stays in the body.
#include "tests/rules/loop_testing.hpp"

using namespace eqsat;
using namespace eqsat::testing;

namespace {

ops::Graph check(const std::string& text) {
  static const rules::RuleProgram kWithout =
      default_rules_without({"scan-push-out-nitsots", "scan-push-out-seqs"});
  return optimized_checked(text, kWithout);
}

}  // namespace

TEST_CASE("the input projection of a recurrence moves out of the loop") {
  const ops::Graph out = check(R"(
    (input xs (f64 30 4)) (input W (f64 4 5)) (input h0 (f64 5))
    (output (get 0 (scan :sequences (xs) :sit-sot (h0) :non-sequences (W)
      (fn (x h w) (tanh (add h (dot x w))))))))");
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  CHECK_FALSE(contains(scans[0]->operand(0), ops::OpKind::Dot));
  CHECK(contains(out.outputs[0].term, ops::OpKind::Dot));
}

TEST_CASE("sequence work of several outputs moves out together") {
  const ops::Graph out = check(R"(
    (input xs (f64 30 4)) (input ys (f64 30 4)) (input h0 (f64 4))
    (let s (scan :sequences (xs ys) :sit-sot (h0 h0) :nit-sot 1
      (fn (x y h g) (add h (exp x)) (mul g (exp y)) (add (mul h (sin y)) (exp x)))))
    (output (get 0 s)) (output (get 1 s)) (output (get 2 s)))");
  const auto scans = scans_in(out);
  REQUIRE(scans.size() == 1);
  CHECK_FALSE(contains(scans[0]->operand(0), ops::OpKind::Exp));
  CHECK_FALSE(contains(scans[0]->operand(0), ops::OpKind::Sin));
}

TEST_CASE("work reading a state and until-loops stay in the loop") {
  const ops::Graph out = check(R"(
    (input xs (f64 30 4)) (input h0 (f64 4))
    (output (get 0 (scan :sequences (xs) :sit-sot (h0)
      (fn (x h) (exp (add h x)))))))");
  REQUIRE(scans_in(out).size() == 1);
  CHECK(contains(scans_in(out)[0]->operand(0), ops::OpKind::Exp));
  const ops::Graph until = check(R"(
    (input xs (f64 30 4)) (input h0 (f64 4))
    (output (get 0 (scan :sequences (xs) :sit-sot (h0) :until true
      (fn (x h) (add h (exp x)) (gt (sum h) 3.0))))))");
  REQUIRE(scans_in(until).size() == 1);
  CHECK(contains(scans_in(until)[0]->operand(0), ops::OpKind::Exp));
}

TEST_CASE("the reverse loop of a gradient gets its sequence work pushed out") {
  const ops::Graph g = graph(R"(
    (input xs (f64 12 3)) (input h0 (f64 3)) (input w (f64 3))
    (output (grad (sum (get 0 (scan :sequences (xs) :sit-sot (h0) :non-sequences (w)
      (fn (x h v) (add (mul h v) (exp x)))))) w)))");
  static const rules::RuleProgram kWithout =
      default_rules_without({"scan-push-out-nitsots", "scan-push-out-seqs"});
  const ops::Graph before = rules::optimize(g, kWithout);
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(out));
  check_same_values(before, out);
  std::size_t exps_inside = 0;
  for (ops::TermRef s : scans_in(out)) exps_inside += contains(s->operand(0), ops::OpKind::Exp);
  CHECK(exps_inside == 0);
}
