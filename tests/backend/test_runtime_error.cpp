// Run-time errors stop with a message naming the op and, when the graph
// came from a file, its source position — never a crash. Each message is
// checked exactly.
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include "graph_builder.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

using namespace eqsat;
using namespace eqsat::test;

namespace {

const auto kF64 = DType::F64;
constexpr auto kAny = ops::kUnknownDim;

std::string error_of(const ops::Graph& g, std::vector<ops::Array> inputs) {
  try {
    backend::compile(g).run(std::move(inputs));
  } catch (const backend::RuntimeError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("shapes that do not broadcast, located at the op") {
  TermRef x = input("x", kF64, {kAny});
  TermRef y = input("y", kF64, {kAny});
  TermRef sum = op(OpKind::Add, {x, y});
  ops::Graph g = graph({x, y}, {sum});
  CHECK(error_of(g, {vec({1, 2, 3}), vec({1, 2, 3, 4})}) ==
        "add: shapes (3) and (4) do not broadcast");
  g.locations[sum] = {"f.eg", 3, 9};
  CHECK(error_of(g, {vec({1, 2, 3}), vec({1, 2, 3, 4})}) ==
        "f.eg:3:9: error: add: shapes (3) and (4) do not broadcast");
}

TEST_CASE("an index out of range") {
  TermRef x = input("x", kF64, {kAny});
  TermRef i = input("i", DType::I64);
  ops::Graph g = graph({x, i}, {op(OpKind::Index, {x, i})});
  CHECK(error_of(g, {vec({1, 2, 3}), ops::Array::scalar(DType::I64, 5)}) ==
        "index: index 5 is out of range for axis 0 with length 3");
  CHECK(error_of(g, {vec({1, 2, 3}), ops::Array::scalar(DType::I64, -4)}) ==
        "index: index -4 is out of range for axis 0 with length 3");
  // UBSan found the index read through double: INT64_MAX became 2^63,
  // which does not fit back into int64.
  ops::Array huge(DType::I64, {});
  huge.data<std::int64_t>()[0] = std::numeric_limits<std::int64_t>::max();
  CHECK(error_of(g, {vec({1, 2, 3}), huge}) ==
        "index: index 9223372036854775807 is out of range for axis 0 with length 3");
  TermRef v = input("v", kF64);
  ops::Graph set = graph({x, i, v}, {op(OpKind::SetIndex, {x, i, v})});
  CHECK(error_of(set, {vec({1}), ops::Array::scalar(DType::I64, 1), ops::Array::scalar(kF64, 0)}) ==
        "set_index: index 1 is out of range for axis 0 with length 1");
}

TEST_CASE(":n-steps longer than a sequence") {
  ops::ScanSpec spec;
  spec.sequence_taps = {{0, 2}};
  spec.num_nitsot = 1;
  spec.has_n_steps = true;
  TermRef body =
      ops::Term::fn({ty(kF64), ty(kF64)}, {op(OpKind::Add, {param(0, kF64), param(1, kF64)})});
  TermRef xs = input("xs", kF64, {kAny});
  TermRef s = scan(spec, body, {i64(10), xs});
  ops::Graph g = graph({xs}, {get(0, s)});
  g.locations[s] = {"loop.eg", 7, 3};
  CHECK(error_of(g, {vec({1, 2, 3, 4, 5})}) ==
        "loop.eg:7:3: error: scan: :n-steps is 10 but sequence 1 (length 5, taps up to 2) allows "
        "only 3 steps");
}

TEST_CASE("an error inside a loop body names the body's op") {
  ops::ScanSpec spec;
  spec.sequence_taps = {{0}};
  spec.num_nitsot = 1;
  spec.num_nonsequences = 1;
  TermRef row = param(0, kF64, {kAny});
  TermRef add = op(OpKind::Add, {row, param(1, kF64, {kAny})});
  TermRef body = ops::Term::fn({ty(kF64, {kAny}), ty(kF64, {kAny})}, {add});
  TermRef m = input("m", kF64, {2, kAny});
  TermRef w = input("w", kF64, {kAny});
  TermRef s = scan(spec, body, {m, w});
  ops::Graph g = graph({m, w}, {get(0, s)});
  g.locations[add] = {"body.eg", 4, 12};
  g.locations[s] = {"body.eg", 2, 1};
  CHECK(error_of(g, {ops::Array(kF64, {2, 3}), vec({1, 2})}) ==
        "body.eg:4:12: error: add: shapes (3) and (2) do not broadcast");
}

TEST_CASE("a reshape that does not fit") {
  TermRef x = input("x", kF64, {kAny});
  ops::Graph g = graph({x}, {op(OpKind::Reshape, {x}, {{AttrKey::Shape, ops::IntList{4, -1}}})});
  CHECK(error_of(g, {vec({1, 2, 3, 4, 5, 6})}) ==
        "reshape: cannot reshape 6 elements of shape (6) into (4 -1)");
  ops::Graph fixed = graph({x}, {op(OpKind::Reshape, {x}, {{AttrKey::Shape, ops::IntList{2, 2}}})});
  CHECK(error_of(fixed, {vec({1, 2, 3})}) ==
        "reshape: cannot reshape 3 elements of shape (3) into (2 2)");
}

TEST_CASE("inputs of the wrong count, dtype or shape") {
  TermRef x = input("x", kF64, {3, kAny});
  ops::Graph g = graph({x}, {op(OpKind::Exp, {x})});
  g.locations[x] = {"in.eg", 1, 1};
  CHECK(error_of(g, {}) == "expected 1 input, got 0");
  CHECK(error_of(g, {ops::Array(DType::F32, {3, 2})}) ==
        "in.eg:1:1: error: input x: expected (f64 3 ?), got (f32 3 2)");
  CHECK(error_of(g, {ops::Array(kF64, {4, 2})}) ==
        "in.eg:1:1: error: input x: expected (f64 3 ?), got (f64 4 2)");
  CHECK(error_of(g, {ops::Array(kF64, {3})}) ==
        "in.eg:1:1: error: input x: expected (f64 3 ?), got (f64 3)");
}

TEST_CASE("other run-time errors: squeeze, concat, dot, broadcast_to, arange, pow") {
  TermRef x = input("x", kF64, {kAny, kAny});
  TermRef y = input("y", kF64, {kAny, kAny});
  const auto two = [](std::int64_t a, std::int64_t b) { return ops::Array(kF64, {a, b}); };
  CHECK(error_of(graph({x}, {op(OpKind::Squeeze, {x}, {{AttrKey::Axis, ops::IntList{0}}})}),
                 {two(2, 3)}) == "squeeze: axis 0 has length 2, not 1");
  CHECK(error_of(graph({x, y}, {op(OpKind::Concat, {x, y})}), {two(2, 3), two(2, 4)}) ==
        "concat: shapes (2 3) and (2 4) differ off axis 0");
  CHECK(error_of(graph({x, y}, {op(OpKind::Dot, {x, y})}), {two(2, 3), two(4, 5)}) ==
        "dot: inner dimensions differ: 3 and 4 for shapes (2 3) and (4 5)");
  CHECK(error_of(graph({x}, {op(OpKind::BroadcastTo, {x}, {{AttrKey::Shape, ops::IntList{4, 3}}})}),
                 {two(2, 3)}) == "broadcast_to: cannot broadcast shape (2 3) to (4 3)");
  TermRef n = input("n", DType::I64);
  CHECK(error_of(graph({n}, {op(OpKind::Arange, {n})}), {ops::Array::scalar(DType::I64, -2)}) ==
        "arange: length must be >= 0, got -2");
  TermRef k = input("k", DType::I64, {kAny});
  CHECK(error_of(graph({k}, {op(OpKind::Pow, {k, k})}), {vec({2, -1}, DType::I64)}) ==
        "pow: integers to negative integer powers are not allowed");
  CHECK(error_of(graph({x}, {op(OpKind::Max, {x})}), {two(0, 3)}) ==
        "max: cannot reduce axis 0 of length 0 (no identity)");
}

TEST_CASE("a set_slice value that does not fit, a mit-sot history of the wrong length") {
  TermRef x = input("x", kF64, {kAny});
  TermRef v = input("v", kF64, {kAny});
  ops::Graph g = graph({x, v}, {op(OpKind::SetSlice, {x, v}, {{AttrKey::Step, std::int64_t{2}}})});
  CHECK(error_of(g, {vec({1, 2, 3, 4, 5}), vec({1, 2})}) ==
        "set_slice: value of shape (2) does not fit a target of shape (3)");

  ops::ScanSpec spec;
  spec.mitsot_taps = {{-3, -1}};
  spec.has_n_steps = true;
  TermRef body =
      ops::Term::fn({ty(kF64), ty(kF64)}, {op(OpKind::Add, {param(0, kF64), param(1, kF64)})});
  TermRef h = input("h", kF64, {kAny});
  TermRef s = scan(spec, body, {i64(4), h});
  CHECK(error_of(graph({h}, {get(0, s)}), {vec({1, 2})}) ==
        "scan: mit-sot 1 has taps down to -3 and needs 3 initial steps, got 2");
}

TEST_CASE("a result too large for memory is an error, not a crash") {
  TermRef n = input("n", DType::I64);
  CHECK(error_of(graph({n}, {op(OpKind::Arange, {n})}),
                 {ops::Array::scalar(DType::I64, static_cast<double>(std::int64_t{1} << 62))}) ==
        "arange: out of memory");
  // 2^59 bytes: a valid type (one past 2^63 bytes is refused when built),
  // more than any address space.
  TermRef x = input("x", kF64, {kAny});
  ops::Graph huge = graph({x}, {op(OpKind::BroadcastTo, {x},
                                   {{AttrKey::Shape, ops::IntList{1 << 20, 1 << 20, 1 << 16}}})});
  CHECK(error_of(huge, {vec({1})}) == "broadcast_to: out of memory");
}

TEST_CASE("a graph that still contains grad is refused with a clear error") {
  TermRef x = input("x", kF64);
  TermRef g = op(OpKind::Grad, {op(OpKind::Square, {x}), x});
  ops::Graph graph_with_grad = graph({x}, {g});
  graph_with_grad.locations[g] = {"grad.eg", 2, 9};
  try {
    backend::compile(graph_with_grad);
    FAIL("compile accepted grad");
  } catch (const backend::RuntimeError& e) {
    CHECK(std::string(e.what()) ==
          "grad.eg:2:9: error: grad: cannot run a graph that still contains grad (the optimizer "
          "expands gradients: run without --no-opt)");
  }
}

TEST_CASE("a program keeps working after a run-time error") {
  TermRef x = input("x", kF64, {kAny});
  TermRef y = input("y", kF64, {kAny});
  backend::Program p = backend::compile(graph({x, y}, {op(OpKind::Mul, {x, y})}));
  CHECK_THROWS_AS(p.run({vec({1, 2}), vec({1, 2, 3})}), backend::RuntimeError);
  CHECK(values(p.run({vec({1, 2}), vec({3, 4})})[0]) == std::vector<double>{3, 8});
}
