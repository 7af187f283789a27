// Unknown lengths known equal (rules/tensor/dim_symbols.hpp): the analysis
// knows that an elementwise op or a concat of operands whose lengths come
// from one axis cannot fail, and still says it may where they could differ.
#include "rules/tensor/tensor_egraph.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

// For each output of `text` over x (f64 ? ?), v and w (f64 ?): whether
// computing it may fail.
std::vector<bool> may_fail(const std::string& outputs) {
  const ops::Graph g = ops::parse_graph(
      "(input x (f64 ? ?)) (input v (f64 ?)) (input w (f64 ?))\n" + outputs, "t.eg", ".");
  TensorEGraph eg;
  std::vector<bool> out;
  for (const auto& o : g.outputs) out.push_back(eg.data(eg.add_term(o.term)).may_fail);
  return out;
}

}  // namespace

TEST_CASE("dim symbols: operands of one length broadcast") {
  const auto f = may_fail(
      "(output (sub v v))"                                     // the same value
      "(output (div (sigmoid v) (sigmoid (neg v))))"           // elementwise of it
      "(output (sub x (logsumexp x :axis 1 :keepdims true)))"  // a keepdims reduction
      "(output (add x (transpose (transpose x))))"             // a transpose's axes
      "(output (mul (softmax x :axis 0) (exp x)))"             // softmax keeps the shape
      "(output (concat (exp v) (log w) :axis 0))"              // concat along its axis
      "(output (concat x (exp x) :axis 1))");                  // agreeing beside the axis
  for (std::size_t i = 0; i < f.size(); ++i) {
    INFO("output " << i);
    CHECK_FALSE(f[i]);
  }
}

TEST_CASE("dim symbols: lengths that may differ still may fail") {
  const auto f = may_fail(
      "(output (sub v w))"                                     // two inputs
      "(output (add x (transpose x)))"                         // rows against columns
      "(output (sub x (logsumexp x :axis 0 :keepdims true)))"  // the other axis: fine too
      "(output (add v (sum x :axis 0)))"                       // a reduced axis's length is new
      "(output (concat x (transpose x) :axis 0))");            // columns may differ
  CHECK(f[0]);
  CHECK(f[1]);
  CHECK_FALSE(f[2]);
  CHECK(f[3]);
  CHECK(f[4]);
}

TEST_CASE("dim symbols: zeros_like and ones_like keep their operand's lengths") {
  const auto f = may_fail(
      "(output (add v (zeros_like v)))"                         // a gradient's broadcast
      "(output (mul (ones_like (exp v)) v))"                    // through an elementwise op
      "(output (sub x (zeros_like (transpose (transpose x)))))" // and a transpose pair
      "(output (add v (zeros_like w)))");                       // another input's length
  CHECK_FALSE(f[0]);
  CHECK_FALSE(f[1]);
  CHECK_FALSE(f[2]);
  CHECK(f[3]);
}
