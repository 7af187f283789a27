// Product epilogues' followers (backend/dot_epilogue.cpp): the fused groups
// after a product with an epilogue that read its rows (an LSTM cell) run a
// block of rows at a time right after the product, on one thread or all,
// with the values of the groups run in their turn.
#include "backend/program.hpp"
#include "backend/thread_pool.hpp"
#include "ops/graph_parser.hpp"

#include "array_compare.hpp"
#include "graph_builder.hpp"
#include "program_runs.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace eqsat;
using namespace eqsat::test;

namespace {

TermRef columns(TermRef x, std::int64_t start, std::int64_t stop) {
  return op(
      OpKind::Slice, {x},
      ops::Attrs{{AttrKey::Axis, std::int64_t{1}}, {AttrKey::Start, start}, {AttrKey::Stop, stop}});
}

// One LSTM step, gates (i o f c) in blocks of `hid` columns: outputs the
// new h and c. With `residual` (k = hid), the product reads tanh(h) and
// the new h adds it: the last group could take its buffer, which the
// product reads (it must not). With `keep_product`, the product is an
// output too: nothing fuses with it, so the groups run in their turn.
ops::Graph lstm_step(DType d, std::int64_t m, std::int64_t k, std::int64_t hid, bool residual,
                     bool keep_product) {
  TermRef xw = input("xw", d, {m, 4 * hid});
  TermRef h_in = input("h", d, {m, k});
  TermRef h = residual ? op(OpKind::Tanh, {h_in}) : h_in;
  TermRef c = input("c", d, {m, hid});
  TermRef r = input("r", d, {k, 4 * hid});
  TermRef prod = op(OpKind::Dot, {h, r});
  TermRef gates = op(OpKind::Add, {xw, prod});
  TermRef i = op(OpKind::Sigmoid, {columns(gates, 0, hid)});
  TermRef o = op(OpKind::Sigmoid, {columns(gates, hid, 2 * hid)});
  TermRef f = op(OpKind::Sigmoid, {columns(gates, 2 * hid, 3 * hid)});
  TermRef cc = op(OpKind::Tanh, {columns(gates, 3 * hid, 4 * hid)});
  TermRef c2 = op(OpKind::Add, {op(OpKind::Mul, {f, c}), op(OpKind::Mul, {i, cc})});
  TermRef h2 = op(OpKind::Mul, {o, op(OpKind::Tanh, {c2})});
  if (residual) h2 = op(OpKind::Add, {h2, h});
  std::vector<TermRef> outs{h2, c2};
  if (keep_product) outs.push_back(prod);
  return graph({xw, h_in, c, r}, outs);
}

}  // namespace

TEST_CASE("an LSTM cell after its product runs by rows with the values of the groups apart") {
  struct Case {
    std::int64_t m, k, hid;
    bool by_rows;  // the groups' rows line up and are long enough
  };
  // Fewer rows than threads: the groups run in their turn.
  // The LSTM step; one row; odd sizes; a product too small to split
  // (its rows shared out after it); more rows than a chunk of the product;
  // an empty inner dimension; rows shorter than a pass takes (the groups
  // then run in their turn).
  const std::vector<Case> cases = {{16, 128, 128, true}, {1, 50, 64, true},   {37, 70, 70, true},
                                   {5, 7, 64, true},     {300, 64, 96, true}, {9, 0, 64, true},
                                   {16, 24, 40, false}};
  std::mt19937_64 rng(28);
  for (DType d : {DType::F32, DType::F64}) {
    for (const Case& c : cases) {
      for (bool residual : {false, true}) {
        if (residual && c.k != c.hid) continue;
        for (bool one_thread : {false, true}) {
          const bool by_rows = c.by_rows && c.m >= backend::num_threads();
          INFO(c.m << " x " << c.k << " x " << 4 * c.hid << " " << ops::dtype_name(d)
                   << (residual ? " residual" : "") << (one_thread ? " one thread" : ""));
          backend::Program fused = backend::compile(lstm_step(d, c.m, c.k, c.hid, residual, false));
          backend::Program apart = backend::compile(lstm_step(d, c.m, c.k, c.hid, residual, true));
          const std::vector<ops::Array> args = {
              random_array(d, {c.m, 4 * c.hid}, rng), random_array(d, {c.m, c.k}, rng),
              random_array(d, {c.m, c.hid}, rng), random_array(d, {c.k, 4 * c.hid}, rng)};
          fused.set_profiling(true);
          apart.set_profiling(true);
          const std::vector<ops::Array> got = run_on(fused, args, one_thread);
          const std::vector<ops::Array> want = run_on(apart, args, one_thread);
          REQUIRE(got.size() == 2);
          CHECK(compare_arrays(got[0], want[0]) == "");
          CHECK(compare_arrays(got[1], want[1]) == "");
          const auto timings = fused.op_timings();
          const std::size_t at = residual ? 1 : 0;  // after tanh(h)
          REQUIRE(timings.size() == at + 3);
          CHECK(timings[at].op.starts_with("dot(epilogue: add, then by rows: 2 groups"));
          // The groups ran in their turn only where the product did not run them.
          for (std::size_t i = at + 1; i < at + 3; ++i)
            CHECK(timings[i].calls == (by_rows ? 0 : 1));
          for (const auto& t : apart.op_timings()) CHECK(t.op.find("by rows") == std::string::npos);
          // Again, buffers reused (only the outputs are new): the same values.
          const std::uint64_t before = fused.bytes_allocated();
          const std::vector<ops::Array> again = run_on(fused, args, one_thread);
          CHECK(compare_arrays(again[0], got[0], 0) == "");
          CHECK(compare_arrays(again[1], got[1], 0) == "");
          CHECK(fused.bytes_allocated() - before == got[0].nbytes() + got[1].nbytes());
        }
      }
    }
  }
}

TEST_CASE("an LSTM loop whose cell runs by rows takes no buffer per step") {
  // The layer of bench/onnx_models.py as optimized (the last states kept
  // only), over a sequence of any length: the buffers one run takes are
  // the same for 40 steps and for 120 (both enough work to run by rows on
  // several threads, scan_rows.hpp).
  const ops::Graph g = ops::parse_graph(R"(
(input xw (f32 ? 16 512))
(input rt (f32 128 512))
(let zero (zeros :shape (16 128) :dtype f32))
(let s (scan :sequences (xw) :sit-sot (zero zero) :non-sequences (rt) :keep (1 1)
  (fn (xw_t h c rt_)
    (let gates (add xw_t (dot h rt_)))
    (let i (sigmoid (slice gates :axis 1 :stop 128)))
    (let o (sigmoid (slice gates :axis 1 :start 128 :stop 256)))
    (let f (sigmoid (slice gates :axis 1 :start 256 :stop 384)))
    (let cc (tanh (slice gates :axis 1 :start 384)))
    (let c2 (add (mul f c) (mul i cc)))
    (mul o (tanh c2))
    c2)))
(output (index (get 0 s) -1))
)",
                                        "lstm.eg", ".");
  std::mt19937_64 rng(7);
  const ops::Array rt = random_array(DType::F32, {128, 512}, rng);
  std::vector<std::uint64_t> bytes;
  std::vector<ops::Array> last;
  for (std::int64_t steps : {40, 120}) {
    backend::Program p = backend::compile(g);
    const std::vector<ops::Array> args = {random_array(DType::F32, {steps, 16, 512}, rng), rt};
    last = p.run(args);
    bytes.push_back(p.bytes_allocated());
    REQUIRE(last.size() == 1);
    CHECK(last[0].shape() == ops::Dims{16, 128});
    CHECK(compare_arrays(p.run(args)[0], last[0], 0) == "");  // again: the same bits
  }
  CHECK(bytes[0] == bytes[1]);
}
