// Unknown lengths known equal from a term's structure
// (rules/tensor/term_dim_symbols.hpp), as the gradient asks before it
// undoes a broadcast at run time.
#include "rules/tensor/term_dim_symbols.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

// The outputs of `outputs` over x (f64 ? ?), v and w (f64 ?), s (f64 3).
std::vector<ops::TermRef> terms(const std::string& outputs) {
  const ops::Graph g = ops::parse_graph(
      "(input x (f64 ? ?)) (input v (f64 ?)) (input w (f64 ?)) (input s (f64 3))\n" + outputs,
      "t.eg", ".");
  std::vector<ops::TermRef> out;
  for (const auto& o : g.outputs) out.push_back(o.term);
  return out;
}

}  // namespace

TEST_CASE("term dim symbols: lengths passed on by elementwise ops, reductions, transposes") {
  const auto t = terms(
      "(output v) (output (mul (exp v) (zeros_like v)))"
      "(output x) (output (sub x (max x :axis (1) :keepdims true)))"
      "(output (transpose x))");
  CHECK(same_length(t[0], 0, t[1], 0));
  CHECK(same_length(t[2], 0, t[3], 0));
  CHECK(same_length(t[2], 1, t[3], 1));
  CHECK(same_length(t[2], 0, t[4], 1));
  CHECK(same_length(t[2], 1, t[4], 0));
  CHECK_FALSE(same_length(t[2], 0, t[4], 0));  // rows and columns may differ
  CHECK(term_dim_symbols(t[0]).size() == 1);
}

TEST_CASE("term dim symbols: lengths that may differ are not the same") {
  const auto t = terms(
      "(output v) (output w) (output (add v w))"
      "(output s) (output (mul v s))"
      "(output (sum x :axis (0) :keepdims true)) (output x) (output (set_index v 0 1.0))");
  CHECK_FALSE(same_length(t[0], 0, t[1], 0));  // two inputs
  CHECK_FALSE(same_length(t[0], 0, t[2], 0));  // a broadcast of two: a new length
  CHECK_FALSE(same_length(t[0], 0, t[4], 0));  // ? against 3
  CHECK(same_length(t[3], 0, t[4], 0));        // static lengths compare
  CHECK_FALSE(same_length(t[5], 0, t[6], 0));  // a reduced axis has length 1
  CHECK(same_length(t[5], 1, t[6], 1));        // the kept one stays
  CHECK(same_length(t[7], 0, t[0], 0));        // a write keeps its operand's shape
}
