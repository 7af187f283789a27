// dim-through: a length read through indexing and loop outputs comes from
// the loop's operands, so a loop read only for its shapes disappears.
#include "tests/support/check_optimizes.hpp"

#include "backend/program.hpp"
#include "ops/graph_printer.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace eqsat;
using eqsat::testing::contains;
using eqsat::testing::graph;
using eqsat::testing::optimized;

namespace {

// A loop of every kind of output; each output reads one axis of one of them.
constexpr const char* kShapes = R"(
(input xs (f64 ? 3 ?))
(input h0 (f64 ? 2))
(input w (f64 4 ?))
(input hist (f64 2 ?))
(let s (scan :sequences (xs) :mit-sot ((hist :taps (-2))) :sit-sot (h0) :nit-sot 2
             :non-sequences (w)
  (fn (x m h w_) (exp m) (tanh h) x w_)))
(output (dim (get 0 s) :axis 1))
(output (dim (get 1 s) :axis 1))
(output (dim (get 1 s) :axis 2))
(output (dim (get 2 s) :axis 2))
(output (dim (get 3 s) :axis 2))
(output (dim (index (get 2 s) 0) :axis 1))
(output (dim (get 3 s) :axis -1)))";

// Arrays of the inputs' shapes, each unknown dimension a different length.
std::vector<ops::Array> inputs_for(const ops::Graph& g) {
  std::vector<ops::Array> out;
  std::int64_t next = 5;
  for (ops::TermRef in : g.inputs) {
    ops::Dims d = in->tensor_type().dims;
    for (auto& x : d)
      if (x == ops::kUnknownDim) x = next++;
    ops::Array a(ops::DType::F64, d);
    for (std::int64_t i = 0; i < a.size(); ++i) a.data<double>()[i] = 0.01 * double(i % 7);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

TEST_CASE("lengths of loop outputs come from the loop's operands") {
  const ops::Graph g = graph(kShapes);
  const ops::Graph out = optimized(g);
  INFO(ops::print_graph(out));
  for (const auto& o : out.outputs) CHECK_FALSE(contains(o.term, ops::OpKind::Scan));
  const auto in = inputs_for(g);
  const auto expected = backend::compile(g).run(in);
  const auto actual = backend::compile(out).run(in);
  REQUIRE(expected.size() == actual.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    INFO("output " << k);
    CHECK(actual[k].element(0) == expected[k].element(0));
  }
}

TEST_CASE("the steps an until-loop runs still need the loop") {
  // Axis 0 of an output is the step count, which only running the loop
  // tells when it stops on its flag; the other axes do not need it.
  const ops::Graph out = optimized(graph(R"(
    (input h0 (f64 ?))
    (let s (scan :n-steps 100 :sit-sot (h0) :until true
      (fn (h) (mul h 0.5) (lt (sum h) 0.1))))
    (output (dim (get 0 s) :axis 0))
    (output (dim (get 0 s) :axis 1)))"));
  INFO(ops::print_graph(out));
  CHECK(contains(out.outputs[0].term, ops::OpKind::Scan));
  CHECK_FALSE(contains(out.outputs[1].term, ops::OpKind::Scan));
}

TEST_CASE("dim-through: the length of an elementwise result is its covering operand's") {
  // PyTensor's TestShapeRewriter: the shape of v + m needs no add.
  const std::string in =
      "(input v (f64 3)) (input m (f64 ? 3)) (input s (f64 1 1)) (input u (f64 ? 1))\n";
  testing::check_optimizes(in + "(output (dim (add v m) :axis 0))",
                           in + "(output (dim m :axis 0))");
  testing::check_optimizes(in + "(output (dim (exp (mul m s)) :axis 0))",
                           in + "(output (dim m :axis 0))");
}

TEST_CASE("dim-through: lengths two operands may set are their broadcast's") {
  // TestShapeRewriter on unknown lengths: v's and m's may both set the
  // length, and may not broadcast; the add goes, its check stays (in
  // broadcast_like, which fails where the add does: at the written dim, the
  // nearest written term above it).
  const std::string in = "(input v (f64 ?)) (input m (f64 ? ?)) (input u (f64 ? 1))\n";
  for (const char* axis : {"0", "1"}) {
    const std::string text = in + "(output (dim (add v m) :axis " + axis + "))";
    const ops::Graph g = graph(text), out = optimized(g);
    INFO(ops::print_graph(out));
    CHECK_FALSE(contains(out.outputs[0].term, ops::OpKind::Add));
    CHECK(contains(out.outputs[0].term, ops::OpKind::BroadcastLike));
    auto filled = [](ops::Dims d) { return ops::Array::filled(ops::DType::F64, d, 0.5); };
    // Lengths 1 and 2 broadcast at run time, either way round.
    for (const auto& [vd, md] :
         {std::pair{ops::Dims{2}, ops::Dims{3, 2}}, std::pair{ops::Dims{1}, ops::Dims{3, 2}},
          std::pair{ops::Dims{2}, ops::Dims{3, 1}}}) {
      const std::vector<ops::Array> at{filled(vd), filled(md), filled({1, 1})};
      CHECK(backend::compile(out).run(at)[0].integer_element(0) ==
            backend::compile(g).run(at)[0].integer_element(0));
    }
    const std::vector<ops::Array> bad{filled({3}), filled({4, 2}), filled({1, 1})};
    CHECK_THROWS_WITH(backend::compile(g).run(bad), Catch::StartsWith("t.eg:2:14: error: add: ") &&
                                                        Catch::Contains("do not broadcast"));
    CHECK_THROWS_WITH(backend::compile(out).run(bad), Catch::StartsWith("t.eg:2:9: error: ") &&
                                                          Catch::Contains("do not broadcast"));
  }
  // An integer power fails on a negative exponent too: the pow stays.
  const std::string ints = "(input a (i64 ?)) (input b (i64 ?))\n";
  CHECK(contains(optimized(graph(ints + "(output (dim (pow a b) :axis 0))")).outputs[0].term,
                 ops::OpKind::Pow));
  // m and u may both set axis 0 (the add stayed before broadcast_like).
  CHECK_FALSE(contains(optimized(graph(in + "(output (dim (add m u) :axis 0))")).outputs[0].term,
                       ops::OpKind::Add));
}

TEST_CASE("dim-through: an operand left out of the length must not fail") {
  // max over an axis that may be empty fails; the product's columns may be
  // too, so the class of the length read from the softmax "may fail" as well:
  // the one flag cannot tell the two failures apart, the dropped operand can.
  const std::string g = R"((input q (f32 ? 16)) (input k (f32 ? 16))
    (let s (dot q (transpose k)))
    (output (dim (add (softmax s :axis 1) (zeros_like (max s :axis (1) :keepdims true))) :axis 1)))";
  CHECK(contains(optimized(graph(g)).outputs[0].term, ops::OpKind::Max));
}
