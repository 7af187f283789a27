// The tensor analysis's facts about a class: here the lengths `dim` reads
// from a static type (an axis of an op's result, a loop's step count), and
// the ones it must leave to run time.
#include "rules/tensor/tensor_egraph.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

// The analysis's "every element equals" fact for the first output of `text`.
std::optional<double> uniform_of_output(const std::string& text) {
  const ops::Graph g = ops::parse_graph(text, "t.eg", ".");
  TensorEGraph eg;
  return eg.data(eg.add_term(g.outputs[0].term)).uniform;
}

}  // namespace

TEST_CASE("dim of a statically known axis is a constant") {
  CHECK(uniform_of_output("(input x (f64 30 4)) (output (dim (exp x) :axis 1))") == 4.0);
  // A loop's output is as long as its constant step count.
  CHECK(uniform_of_output(R"((input h0 (f64 3))
    (output (dim (get 0 (scan :n-steps 7 :sit-sot (h0) (fn (h) (tanh h)))))))") == 7.0);
  // Unknown lengths stay unknown: an input's, an until-loop's.
  CHECK_FALSE(uniform_of_output("(input x (f64 ? 4)) (output (dim x))"));
  CHECK_FALSE(uniform_of_output(R"((input h0 f64)
    (output (dim (get 0 (scan :n-steps 7 :until true :sit-sot (h0)
      (fn (h) (mul h 2.0) (gt h 5.0)))))))"));
  // The values of a constant array are not its length.
  CHECK(uniform_of_output("(input x (f64 5)) (output (dim (zeros_like x)))") == 5.0);
}
