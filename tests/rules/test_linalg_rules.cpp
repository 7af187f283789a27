// rules/linalg.rules beyond matrix chains (test_matrix_chain.cpp): a
// product with a one-hot vector is a row or a column, so the jacobian loop
// PyTensor's TestPushOutNonSeqScan::test_dot_not_output builds reads rows
// of the matrix instead of multiplying by a one-hot vector each step.
#include "loop_testing.hpp"

#include "rules/pipeline/prove_equal.hpp"

using namespace eqsat;
using namespace eqsat::testing;

namespace {

// True when the shipped rules prove the graph's two outputs equal.
bool proves_with_rules(const std::string& text) {
  static const rules::RuleProgram kShipped = rules::load_default_rules();
  const ops::Graph g = graph(text);
  return rules::prove_equal(g, g.outputs.at(0).term, g.outputs.at(1).term, kShipped)
      .explanation.has_value();
}

}  // namespace

TEST_CASE("a product with a one-hot vector is a row or a column") {
  CHECK(proves_with_rules(R"(
    (input b (f64 5 3)) (input i i64) (input s f64)
    (output (dot (inc_index (zeros :shape (5)) i s) b))
    (output (mul s (index b i))))"));
  CHECK(proves_with_rules(R"(
    (input a (f64 3 5)) (input i i64) (input s f64)
    (output (dot a (inc_index (zeros :shape (5)) i s)))
    (output (mul s (index (transpose a) i))))"));
  // Not for a vector that is not one-hot.
  CHECK_FALSE(proves_with_rules(R"(
    (input b (f64 5 3)) (input i i64) (input s f64) (input x (f64 5))
    (output (dot (inc_index x i s) b))
    (output (mul s (index b i))))"));
}

TEST_CASE("the jacobian loop of a vector-matrix product reads the matrix's columns") {
  const ops::Graph out = optimize_and_compare(graph(R"(
    (input v (f64 4)) (input m (f64 4 5))
    (output (get 0 (scan :sequences ((arange 5)) :non-sequences (v m) :nit-sot 1
      (fn (i vv mm) (grad (index (dot vv mm) i) vv))))))"),
                                              nullptr, false);
  INFO(ops::print_graph(out));
  CHECK_FALSE(contains(out.outputs[0].term, ops::OpKind::Dot));
  const auto in = inputs_for(out);
  const auto j = backend::compile(out).run(in)[0];
  const ops::Array& m = in[1];
  REQUIRE(j.shape() == ops::Dims{5, 4});
  for (std::int64_t r = 0; r < 5; ++r)
    for (std::int64_t c = 0; c < 4; ++c) CHECK(j.element(r * 4 + c) == m.element(c * 5 + r));
}
