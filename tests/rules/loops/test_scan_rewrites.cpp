// Loop rewrites on non-sequences (unused, constant, duplicate, invariant
// work): the simplified loops compute the same values.
#include "rules/pipeline/optimize.hpp"
#include "tests/rules/loop_testing.hpp"

#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

ops::Graph graph(const std::string& text) {
  return ops::parse_graph(text, "t.eg", ".");
}

// The body of the first scan under `t`.
ops::TermRef body_of(ops::TermRef t) {
  if (t->kind() == ops::OpKind::Scan) return t->operand(0);
  for (ops::TermRef o : t->operands())
    if (ops::TermRef b = body_of(o)) return b;
  return nullptr;
}

}  // namespace

TEST_CASE("simplified loops compute the same values") {
  const ops::Graph g = graph(R"(
    (input xs (f64 6 3)) (input x0 (f64 3)) (input skip (f64 4))
    (output (get 0 (scan :sequences (xs) :sit-sot (x0) :non-sequences (skip 0.5 (const (f64 3) (1 2 3)))
      (fn (x h s k c) (add (mul h k) (mul x c)))))))");
  OptimizeReport report;
  const ops::Graph out = optimize(g, load_default_rules(), &report);
  INFO(ops::print_graph(out));
  std::vector<ops::Array> inputs = {ops::Array::filled(ops::DType::F64, {6, 3}, 0.25),
                                    ops::Array::filled(ops::DType::F64, {3}, 1.5),
                                    ops::Array::filled(ops::DType::F64, {4}, 7)};
  const auto expected = backend::compile(g).run(inputs);
  const auto actual = backend::compile(out).run(inputs);
  REQUIRE(expected[0].size() == actual[0].size());
  for (std::int64_t i = 0; i < expected[0].size(); ++i)
    CHECK(actual[0].element(i) == Approx(expected[0].element(i)));
  // All three non-sequences are gone: one unused, two constants moved in.
  const ops::TermRef body = body_of(out.outputs[0].term);
  REQUIRE(body != nullptr);
  CHECK(body->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params).size() == 2);
}

TEST_CASE("a non-sequence given twice is read once") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 3)) (input a (f64 3))
    (output (get 0 (scan :n-steps 4 :sit-sot (x0) :non-sequences (a a)
      (fn (h u v) (add (mul h u) v))))))");
  OptimizeReport report;
  const ops::Graph out = optimize(g, load_default_rules(), &report);
  INFO(ops::print_graph(out));
  const ops::TermRef body = body_of(out.outputs[0].term);
  REQUIRE(body != nullptr);
  CHECK(body->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params).size() == 2);
  const std::vector<ops::Array> inputs = {ops::Array::filled(ops::DType::F64, {3}, 0.5),
                                          ops::Array::filled(ops::DType::F64, {3}, 1.25)};
  const auto expected = backend::compile(g).run(inputs);
  const auto actual = backend::compile(out).run(inputs);
  for (std::int64_t i = 0; i < expected[0].size(); ++i)
    CHECK(actual[0].element(i) == Approx(expected[0].element(i)));
}

TEST_CASE("work that reads only loop inputs moves out of the loop") {
  const ops::Graph g = graph(R"(
    (input x0 (f64 50)) (input a (f64 50))
    (output (get 0 (scan :n-steps 20 :sit-sot (x0) :non-sequences (a)
      (fn (h w) (add h (exp (sin w))))))))");
  OptimizeReport report;
  const ops::Graph out = optimize(g, load_default_rules(), &report);
  INFO(ops::print_graph(out));
  // exp(sin a) is computed once, outside; the body only adds.
  const ops::TermRef body = body_of(out.outputs[0].term);
  REQUIRE(body != nullptr);
  CHECK(body->operand(0)->kind() == ops::OpKind::Add);
  CHECK(body->operand(0)->operand(0)->kind() == ops::OpKind::Nominal);
  CHECK(body->operand(0)->operand(1)->kind() == ops::OpKind::Nominal);
  CHECK(report.cost_after < report.cost_before);
  const std::vector<ops::Array> inputs = {ops::Array::filled(ops::DType::F64, {50}, 0.5),
                                          ops::Array::filled(ops::DType::F64, {50}, 1.25)};
  const auto expected = backend::compile(g).run(inputs);
  const auto actual = backend::compile(out).run(inputs);
  for (std::int64_t i = 0; i < expected[0].size(); ++i)
    CHECK(actual[0].element(i) == Approx(expected[0].element(i)));
}

TEST_CASE("a sequence of one constant moves into the body when no length check is lost") {
  // PyTensor's test_alloc_inputs3: a zero sequence; the body then reads the
  // constant row (whether that is cheaper is the cost model's choice).
  const auto proves = [](const std::string& steps, const std::string& goal_steps) {
    const std::string text =
        "(input W1 (f64 3 3)) (input h0 (f64 3)) (input n i64)"
        "(output (get 0 (scan " +
        steps +
        " :sequences ((zeros_like W1)) :sit-sot (h0)"
        "  (fn (w1 h) (add h (mul w1 h))))))"
        "(output (get 0 (scan " +
        goal_steps +
        " :sit-sot (h0)"
        "  (fn (h) (add h (mul (broadcast_to 0.0 :shape (3)) h))))))";
    return eqsat::testing::proves(text, {"scan-inline-constants"});
  };
  CHECK(proves(":n-steps 3", ":n-steps 3"));
  CHECK(proves(":n-steps 2", ":n-steps 2"));
  CHECK(proves("", ":n-steps 3"));  // the sequence's length becomes the step count
  // A run-time step count is checked against the sequence's length: kept.
  CHECK_FALSE(proves(":n-steps n", ":n-steps n"));
}
