// Loops run by blocks of rows (backend/scan_rows.hpp, scan_runtime.cpp):
// which bodies keep their rows apart (the profile labels such a loop
// "scan(by rows)"), and that such a loop gives the values of the same loop
// run whole — LSTM-like cells with taps, :keep, nit-sots, rows that split
// evenly or not, rows read in place or copied, on all threads or nested in
// a parallel region, and random bodies with ±inf and NaN — and that an
// error inside a block reaches the caller.
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "backend/thread_pool.hpp"
#include "backend/vector_level.hpp"
#include "ops/graph_parser.hpp"

#include "array_compare.hpp"
#include "array_values.hpp"
#include "program_runs.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <random>

using namespace eqsat;
using namespace eqsat::test;
using ops::DType;

namespace {

// The label of the graph's scan in the profile.
std::string scan_label(const std::string& text) {
  backend::Program p = backend::compile(ops::parse_graph(text, "loop.eg", "."));
  p.set_profiling(true);
  for (const auto& t : p.op_timings())
    if (t.op.starts_with("scan")) return t.op;
  return "";
}

// A loop over (B 4) states whose body is `body` over (x_t h w b): x_t of
// (B 4) steps, h the state, w (4 4) and b (4) shared.
std::string loop_with(const std::string& body) {
  return fmt::format(
      "(input x (f64 10 6 4))\n(input h0 (f64 6 4))\n(input w (f64 4 4))\n(input b (f64 4))\n"
      "(let s (scan :sequences (x) :sit-sot (h0) :non-sequences (w b)\n"
      "  (fn (x_t h w_ b_) {})))\n(output y (get 0 s))\n",
      body);
}

// An LSTM-like loop over `rows` rows of `hid` units: a sequence read at
// taps 0 and 1, states h and c, two nit-sots (a softmax, and h and c side
// by side through a transpose), a bias shared by the rows, outputs kept
// as `keep` says. With `whole`, h is read through a reshape to its own
// shape: the same values, but a body the loop cannot split.
std::string lstm_loop(const char* dtype, std::int64_t rows, std::int64_t hid, std::int64_t steps,
                      bool whole, const char* keep) {
  const std::string h =
      whole ? fmt::format("(reshape h :shape ({} {}))", rows, hid) : std::string("h");
  return fmt::format(
      "(input xs ({0} {1} {2} {3}))\n(input r ({0} {4} {3}))\n(input bias ({0} {3}))\n"
      "(input h0 ({0} {2} {4}))\n(input c0 ({0} {2} {4}))\n"
      "(let s (scan :sequences ((xs :taps (0 1))) :sit-sot (h0 c0) :non-sequences (r bias)\n"
      "  :nit-sot 2 :keep {5}\n"
      "  (fn (x_t x_tp1 h c r_ b_)\n"
      "    (let g (add (add x_t (dot {6} r_)) b_))\n"
      "    (let i (sigmoid (slice g :axis 1 :stop {4})))\n"
      "    (let o (sigmoid (slice g :axis 1 :start {4} :stop {7})))\n"
      "    (let f (sigmoid (slice g :axis 1 :start {7} :stop {8})))\n"
      "    (let cc (tanh (slice g :axis 1 :start {8})))\n"
      "    (let c2 (add (mul f c) (mul i cc)))\n"
      "    (let h2 (mul o (tanh c2)))\n"
      "    h2 c2\n"
      "    (mul (softmax (add h2 (slice x_tp1 :axis 1 :stop {4})) :axis 1)\n"
      "         (sum c2 :axis 1 :keepdims true))\n"
      "    (sum (transpose (expand_dims (concat h2 c2 :axis 1) :axis 2) :perm (0 2 1)) "
      ":axis 1))))\n"
      "(output h_last (get 0 s))\n(output c_all (get 1 s))\n"
      "(output soft (get 2 s))\n(output both (get 3 s))\n",
      dtype, steps + 1, rows, 4 * hid, hid, keep, h, 2 * hid, 3 * hid);
}

}  // namespace

TEST_CASE("a loop whose body keeps its rows apart is labelled by rows, one that mixes them not") {
  // Elementwise ops, shared operands that broadcast over the rows, a product
  // by a shared matrix, slices, reductions and softmax along axis 1.
  for (const char* body : {"(tanh (add (dot h w_) (mul x_t b_)))",
                           "(add (softmax h :axis 1) (sum x_t :axis 1 :keepdims true))",
                           "(where (gt h 0.0) (slice (concat h x_t :axis 1) :axis 1 :stop 4) b_)",
                           "(add h (max (expand_dims x_t :axis 2) :axis 2))"}) {
    INFO(body);
    CHECK(scan_label(loop_with(body)).starts_with("scan(by rows)"));
  }
  // Each mixes rows: a reduction or softmax along the rows, a product
  // whose right operand is a row value or whose left is shared, a slice or
  // reshape of the rows, a shared operand as tall as the rows, an index.
  for (const char* body :
       {"(add h (sum x_t :axis 0))", "(add h (sum x_t))", "(softmax h :axis 0)",
        "(dot h (transpose (dot (transpose h) x_t)))", "(dot (ones :shape (6 6) :dtype f64) h)",
        "(concat (slice h :axis 0 :stop 3) (slice x_t :axis 0 :start 3))",
        "(reshape (add h x_t) :shape (6 4))", "(add h (zeros :shape (6 4) :dtype f64))",
        "(add h (index x_t 0))"}) {
    INFO(body);
    const std::string label = scan_label(loop_with(body));
    CHECK(label.starts_with("scan"));
    CHECK(label.find("by rows") == std::string::npos);
  }
}

TEST_CASE("a loop by rows with :until, a mit-sot or a loop inside is not split") {
  const std::string until =
      "(input h0 (f64 6 4))\n(let s (scan :n-steps 5 :sit-sot (h0) :until true\n"
      "  (fn (h) (tanh h) (gt (dim h :axis 0) 100))))\n(output y (get 0 s))\n";
  const std::string mitsot =
      "(input h0 (f64 2 6 4))\n(let s (scan :n-steps 5 :mit-sot ((h0 :taps (-2 -1)))\n"
      "  (fn (a b) (add a b))))\n(output y (get 0 s))\n";
  const std::string nested =
      "(input h0 (f64 6 4))\n(let s (scan :n-steps 5 :sit-sot (h0)\n"
      "  (fn (h) (index (get 0 (scan :n-steps 2 :sit-sot (h) (fn (g) (tanh g)))) 1))))\n"
      "(output y (get 0 s))\n";
  for (const std::string& text : {until, mitsot, nested}) {
    INFO(text);
    const std::string label = scan_label(text);
    CHECK(label.starts_with("scan"));
    CHECK(label.find("by rows") == std::string::npos);
  }
}

TEST_CASE("an LSTM-like loop by rows gives the values of the same loop run whole") {
  struct Case {
    const char* dtype;
    std::int64_t rows, hid, steps;
    const char* keep;
  };
  // f64 rows of 256 elements: every block starts aligned, taps read in
  // place; f32 rows of 404 elements and 7 rows: blocks of 3 and 4 rows,
  // taps copied (each block holds at least 512 elements of state, so both
  // split on two threads); then loops too small to split (too little
  // work, one step), which run whole.
  const Case cases[] = {{"f64", 8, 64, 40, "(1 all 3 all)"},
                        {"f32", 7, 101, 40, "(all 2 all 1)"},
                        {"f64", 3, 5, 60, "(1 1 all all)"},
                        {"f64", 5, 8, 1, "(all all all all)"}};
  std::mt19937_64 rng(29);
  for (const Case& c : cases) {
    const DType d = c.dtype[1] == '3' ? DType::F32 : DType::F64;
    backend::Program split = backend::compile(
        ops::parse_graph(lstm_loop(c.dtype, c.rows, c.hid, c.steps, false, c.keep), "a.eg", "."));
    backend::Program whole = backend::compile(
        ops::parse_graph(lstm_loop(c.dtype, c.rows, c.hid, c.steps, true, c.keep), "b.eg", "."));
    split.set_profiling(true);
    whole.set_profiling(true);
    // The recurrent weights scaled by 1 / hid, so that the recurrence
    // contracts: with weights of order 1 it is chaotic, and a rounding
    // difference of one step (a library's product may round a block of
    // rows differently from all of them) grew to order 1 in 40 steps.
    ops::Array r = random_array(d, {c.hid, 4 * c.hid}, rng);
    for (std::int64_t i = 0; i < r.size(); ++i) set_element(r, i, r.element(i) / double(c.hid));
    const std::vector<ops::Array> args = {random_array(d, {c.steps + 1, c.rows, 4 * c.hid}, rng), r,
                                          random_array(d, {4 * c.hid}, rng),
                                          random_array(d, {c.rows, c.hid}, rng),
                                          random_array(d, {c.rows, c.hid}, rng)};
    // eqsat's own f32 product sums each element the same way in any block
    // of rows: there a loop by rows has the bits of the loop run whole.
    const bool same_bits = d == DType::F32 && backend::vector_level() == backend::VectorLevel::Avx2;
    for (bool nested : {false, true}) {
      INFO(c.dtype << " " << c.rows << " rows of " << c.hid << ", " << c.steps << " steps, keep "
                   << c.keep << (nested ? ", nested" : ""));
      const std::vector<ops::Array> got = run_on(split, args, nested);
      const std::vector<ops::Array> want = run_on(whole, args, nested);
      REQUIRE(got.size() == 4);
      for (std::size_t o = 0; o < 4; ++o)
        CHECK(compare_arrays(got[o], want[o], same_bits ? 0.0 : 1.0) == "");
      // Again, with the buffers of the first run.
      const std::vector<ops::Array> again = run_on(split, args, nested);
      for (std::size_t o = 0; o < 4; ++o) CHECK(compare_arrays(again[o], got[o], 0) == "");
    }
    CHECK(split.op_timings().at(0).op.starts_with("scan(by rows)"));
    CHECK(whole.op_timings().at(0).op.find("by rows") == std::string::npos);
  }
}

TEST_CASE("an error inside a block of rows reaches the caller with its position") {
  // Integers to a negative power fail at run time, in whichever block.
  const std::string text =
      "(input h0 (i64 8 300))\n(input p (i64 8 300))\n"
      "(let s (scan :n-steps 20 :sit-sot (h0) :non-sequences (p)\n"
      "  (fn (h p_) (pow h (sub p_ 2)))))\n(output y (get 0 s))\n";
  // p is not shared here (it is as tall as the rows): whole, but the
  // same error as by rows below.
  const std::string by_rows =
      "(input h0 (i64 8 300))\n(input p (i64 300))\n"
      "(let s (scan :n-steps 20 :sit-sot (h0) :non-sequences (p)\n"
      "  (fn (h p_) (pow h (sub p_ 2)))))\n(output y (get 0 s))\n";
  for (const std::string& t : {text, by_rows}) {
    backend::Program p = backend::compile(ops::parse_graph(t, "err.eg", "."));
    ops::Array h0(DType::I64, {8, 300});
    for (std::int64_t i = 0; i < h0.size(); ++i) h0.data<std::int64_t>()[i] = 1;
    ops::Array pw(DType::I64, t == text ? ops::Dims{8, 300} : ops::Dims{300});
    for (std::int64_t i = 0; i < pw.size(); ++i) pw.data<std::int64_t>()[i] = 3;
    pw.data<std::int64_t>()[pw.size() - 1] = 1;  // the last row's last column: power -1
    CHECK_THROWS_WITH(p.run({h0, pw}), Catch::Contains("err.eg:4:14") &&
                                           Catch::Contains("integers to negative integer powers"));
    // The program runs again after the failure.
    pw.data<std::int64_t>()[pw.size() - 1] = 3;
    CHECK(p.run({h0, pw}).at(0).shape() == ops::Dims{20, 8, 300});
  }
}

namespace {

// A random body over the state h (B H), the step x_t (B H) and the shared
// w (H H) and b (H): `ops` steps, each applying one row-keeping op to the
// value so far (v) and one of h, x_t, w or b. With `whole`, h is read
// through a reshape to its own shape, so the loop cannot split.
std::string random_body(std::mt19937_64& rng, int ops, std::int64_t rows, std::int64_t hid,
                        bool whole) {
  const std::string h =
      whole ? fmt::format("(reshape h :shape ({} {}))", rows, hid) : std::string("h");
  std::string v = fmt::format("(add {} x_t)", h);
  std::uniform_int_distribution<int> pick(0, 9);
  for (int i = 0; i < ops; ++i) {
    switch (pick(rng)) {
      case 0:
        v = fmt::format("(tanh {})", v);
        break;
      case 1:
        v = fmt::format("(mul {} (sigmoid x_t))", v);
        break;
      case 2:
        v = fmt::format("(add {} b_)", v);
        break;
      case 3:
        v = fmt::format("(tanh (dot {} w_))", v);
        break;
      case 4:
        v = fmt::format("(maximum {} {})", v, h);
        break;
      case 5:
        v = fmt::format("(where (gt {} x_t) {} (neg x_t))", v, v);
        break;
      case 6:
        v = fmt::format("(softmax {} :axis 1)", v);
        break;
      case 7:
        v = fmt::format("(sub {} (max {} :axis 1 :keepdims true))", v, v);
        break;
      case 8:
        v = fmt::format("(concat (slice {} :axis 1 :start 1) (slice {} :axis 1 :stop 1) :axis 1)",
                        v, v);
        break;
      default:
        v = fmt::format("(div {} (add (abs x_t) 1.0))", v);
        break;
    }
  }
  return v;
}

// Random values with the corners: ±inf and NaN at a few places, zeros.
ops::Array cornered(DType d, const ops::Dims& shape, std::mt19937_64& rng) {
  ops::Array a = random_array(d, shape, rng);
  std::uniform_int_distribution<std::int64_t> at(0, a.size() - 1);
  const double corners[] = {INFINITY, -INFINITY, NAN, 0.0};
  for (double c : corners) {
    const std::int64_t i = at(rng);
    if (d == DType::F32)
      a.data<float>()[i] = static_cast<float>(c);
    else
      a.data<double>()[i] = c;
  }
  return a;
}

}  // namespace

TEST_CASE("random loops that keep rows apart give by rows the values they give whole") {
  std::mt19937_64 rng(2026);
  for (int g = 0; g < 40; ++g) {
    const std::int64_t rows = std::uniform_int_distribution<std::int64_t>(2, 13)(rng);
    // Every fourth loop is too small to split (it runs whole); the others'
    // blocks of rows / 2 rows hold at least 512 elements of state, so they
    // split on two threads.
    const std::int64_t least = g % 4 == 0 ? 2 : (512 + rows / 2 - 1) / (rows / 2);
    const std::int64_t hid = std::uniform_int_distribution<std::int64_t>(least, least + 38)(rng);
    const std::int64_t steps = std::max<std::int64_t>(2, (1 << 14) / (rows * hid) + 1);
    const bool f32 = g % 2 == 1;
    const char* dt = f32 ? "f32" : "f64";
    const int ops = std::uniform_int_distribution<int>(1, 6)(rng);
    const std::uint64_t seed = rng();
    auto text = [&](bool whole) {
      std::mt19937_64 body_rng(seed);
      return fmt::format(
          "(input xs ({0} {1} {2} {3}))\n(input h0 ({0} {2} {3}))\n(input w ({0} {3} {3}))\n"
          "(input b ({0} {3}))\n"
          "(let s (scan :sequences (xs) :sit-sot (h0) :non-sequences (w b)\n"
          "  (fn (x_t h w_ b_) {4})))\n(output y (get 0 s))\n",
          dt, steps, rows, hid, random_body(body_rng, ops, rows, hid, whole));
    };
    const std::string split_text = text(false), whole_text = text(true);
    INFO(split_text);
    backend::Program split = backend::compile(ops::parse_graph(split_text, "r.eg", "."));
    backend::Program whole = backend::compile(ops::parse_graph(whole_text, "r.eg", "."));
    split.set_profiling(true);
    REQUIRE(split.op_timings().at(0).op.starts_with("scan(by rows)"));
    const DType d = f32 ? DType::F32 : DType::F64;
    // Small weights keep the products from overflowing everywhere.
    ops::Array w = random_array(d, {hid, hid}, rng);
    for (std::int64_t i = 0; i < w.size(); ++i) {
      if (f32)
        w.data<float>()[i] /= static_cast<float>(hid);
      else
        w.data<double>()[i] /= static_cast<double>(hid);
    }
    const std::vector<ops::Array> args = {cornered(d, {steps, rows, hid}, rng),
                                          cornered(d, {rows, hid}, rng), w,
                                          random_array(d, {hid}, rng)};
    const std::vector<ops::Array> got = split.run(args), want = whole.run(args);
    CHECK(compare_arrays(got.at(0), want.at(0)) == "");
  }
}
