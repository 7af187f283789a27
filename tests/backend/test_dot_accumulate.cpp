// A product added in place into the value it is added to
// (Function::may_accumulate): only into a value nothing reads after,
// with the values of the separate add, through every library path (the
// oneDNN and OpenBLAS GEMMs, GEMV, DOT, Eigen, an empty inner dimension),
// and in a loop into the rows of a sequence computed for it alone.
#include "backend/program.hpp"
#include "ops/graph_parser.hpp"

#include "array_compare.hpp"
#include "program_runs.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <random>

using namespace eqsat;
using namespace eqsat::test;
using ops::DType;

namespace {

// `(add (dot a b) c)` with c = exp(z): c dies at the add unless it is an
// output too (`keep_c`), and then the product may not be added into it.
ops::Graph product_plus(DType d, std::int64_t m, std::int64_t k, std::int64_t n, bool keep_c) {
  const char* t = d == DType::F32 ? "f32" : "f64";
  return ops::parse_graph(fmt::format(R"(
(input a ({0} {1} {2}))
(input b ({0} {2} {3}))
(input z ({0} {1} {3}))
(let c (exp z))
(output r (add (dot a b) c))
{4})",
                                      t, m, k, n, keep_c ? "(output c c)" : ""),
                          "accumulate.eg", ".");
}

// `a` with every element times `factor`.
ops::Array scaled(ops::Array a, double factor) {
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (a.dtype() == DType::F32)
      a.data<float>()[i] *= static_cast<float>(factor);
    else
      a.data<double>()[i] *= factor;
  }
  return a;
}

}  // namespace

TEST_CASE("a product is added into a value that dies with it, as the separate add would") {
  struct Shape {
    std::int64_t m, k, n;
  };
  // oneDNN (f32, large), OpenBLAS's GEMM (small), GEMV by a row and by a
  // column, DOT, an empty inner dimension, a product split between threads.
  const Shape shapes[] = {{64, 128, 512}, {20, 30, 40}, {1, 30, 50},    {40, 30, 1},
                          {1, 30, 1},     {6, 0, 5},    {256, 256, 256}};
  std::mt19937_64 rng(11);
  for (DType d : {DType::F32, DType::F64}) {
    for (const Shape& s : shapes) {
      CAPTURE(ops::dtype_name(d), s.m, s.k, s.n);
      const std::vector<ops::Array> args = {random_array(d, {s.m, s.k}, rng),
                                            random_array(d, {s.k, s.n}, rng),
                                            random_array(d, {s.m, s.n}, rng)};
      backend::Program in_place = backend::compile(product_plus(d, s.m, s.k, s.n, false));
      backend::Program apart = backend::compile(product_plus(d, s.m, s.k, s.n, true));
      for (bool one_thread : {false, true}) {
        const std::vector<ops::Array> got = run_on(in_place, args, one_thread);
        const std::vector<ops::Array> want = run_on(apart, args, one_thread);
        REQUIRE(got.size() == 1);
        REQUIRE(want.size() == 2);
        CHECK(compare_arrays(got[0], want[0]) == "");
      }
      // The result took exp(z)'s buffer: one buffer of the result's size
      // where the separate add takes two.
      CHECK(in_place.bytes_allocated() < apart.bytes_allocated());
    }
  }
}

TEST_CASE("a product is never added into an input, a constant, or a value read after it") {
  // z is an input read by the add alone; k a constant (folded: it lives
  // in the program); c = exp(z) is read through a view both before the product (which
  // reads its sum) and after it.
  // Each program is run twice (a written constant would change the
  // second run) and against the same program that outputs the added
  // value too (where it may not be written).
  const char* added[] = {"z", "(sin (reshape (arange 32768 :dtype f32) :shape (64 512)))", "c"};
  std::mt19937_64 rng(12);
  const std::vector<ops::Array> args = {random_array(DType::F32, {64, 128}, rng),
                                        random_array(DType::F32, {128, 512}, rng),
                                        random_array(DType::F32, {64, 512}, rng)};
  const ops::Array z = args[2].clone();
  auto program = [](const char* what, bool keep) {
    return backend::compile(ops::parse_graph(fmt::format(R"(
(input a (f32 64 128))
(input b (f32 128 512))
(input z (f32 64 512))
(let c (exp z))
(let v (reshape c :shape (512 64)))
(let added {})
(output (add (dot (mul a (sum v)) b) added))
(output (exp v))
{})",
                                                         what, keep ? "(output added)" : ""),
                                             "accumulate.eg", "."));
  };
  for (const char* what : added) {
    CAPTURE(what);
    backend::Program p = program(what, false);
    const std::vector<ops::Array> first = p.run(args);
    CHECK(compare_arrays(args[2], z, 0) == "");  // the input is untouched
    const std::vector<ops::Array> again = p.run(args);
    backend::Program kept = program(what, true);
    const std::vector<ops::Array> want = kept.run(args);
    REQUIRE(first.size() == 2);
    REQUIRE(want.size() == 3);
    for (std::size_t i = 0; i < first.size(); ++i) {
      CHECK(compare_arrays(again[i], first[i], 0) == "");
      CHECK(compare_arrays(first[i], want[i]) == "");
    }
  }
}

TEST_CASE("a loop's step adds its product into the rows of a sequence computed for it alone") {
  // An LSTM layer whose input projection is computed in the graph: the
  // loop owns it, and each step adds its product into the step's rows
  // (read in place with 8 and 16 rows, copied with 7 rows split into
  // blocks). The same layer with the projection an output too (the loop
  // may not write into it) gives the same values, and that output is the
  // projection itself. The step adds the projection's rows to the product,
  // or (as an imported ONNX LSTM's step does) to the recurrent bias plus
  // the product: then the sum is reassociated, (P + L) + b for L + (b +
  // P). The weights are small, as a trained layer's are: with weights in
  // [-2, 2) each step multiplied the last place's differences by about 9.
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t rows : {16, 8, 7})
      for (bool bias : {false, true}) {
        CAPTURE(ops::dtype_name(d), rows, bias);
        const char* t = d == DType::F32 ? "f32" : "f64";
        auto layer = [&](bool keep_projection) {
          return ops::parse_graph(fmt::format(R"(
(input x ({3} 30 {0} 24))
(input w ({3} 24 256))
(input rt ({3} 64 256))
(input br ({3} 256))
(let xw (dot x w))
(let zero (zeros :shape ({0} 64) :dtype {3}))
(let s (scan :sequences (xw) :sit-sot (zero zero) :non-sequences (rt br) :keep (1 1)
  (fn (xw_t h c rt_ br_)
    (let gates (add xw_t {2}))
    (let i (sigmoid (slice gates :axis 1 :stop 64)))
    (let o (sigmoid (slice gates :axis 1 :start 64 :stop 128)))
    (let f (sigmoid (slice gates :axis 1 :start 128 :stop 192)))
    (let cc (tanh (slice gates :axis 1 :start 192)))
    (let c2 (add (mul f c) (mul i cc)))
    (mul o (tanh c2))
    c2)))
(output h (index (get 0 s) -1))
(output c (index (get 1 s) -1))
{1})",
                                              rows, keep_projection ? "(output xw xw)" : "",
                                              bias ? "(add br_ (dot h rt_))" : "(dot h rt_)", t),
                                  "lstm.eg", ".");
        };
        std::mt19937_64 rng(13);
        const std::vector<ops::Array> args = {
            random_array(d, {30, rows, 24}, rng), scaled(random_array(d, {24, 256}, rng), 0.05),
            scaled(random_array(d, {64, 256}, rng), 0.05), random_array(d, {256}, rng)};
        backend::Program owned = backend::compile(layer(false));
        backend::Program kept = backend::compile(layer(true));
        backend::Program projection = backend::compile(ops::parse_graph(
            fmt::format("(input x ({1} 30 {0} 24))\n(input w ({1} 24 256))\n(output (dot x w))",
                        rows, t),
            "xw.eg", "."));
        const ops::Array xw = projection.run({args[0], args[1]})[0];
        for (bool one_thread : {false, true}) {
          const std::vector<ops::Array> got = run_on(owned, args, one_thread);
          const std::vector<ops::Array> want = run_on(kept, args, one_thread);
          REQUIRE(got.size() == 2);
          REQUIRE(want.size() == 3);
          CHECK(compare_arrays(got[0], want[0]) == "");
          CHECK(compare_arrays(got[1], want[1]) == "");
          CHECK(compare_arrays(want[2], xw, 0) == "");  // the kept projection is untouched
        }
      }
}
