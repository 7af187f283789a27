// The compiled form of a graph: elementwise fusion (one instruction, one
// pass, same numbers as op by op), the fallback when shapes differ at run
// time, buffer reuse across runs, in-place updates, and outputs that never
// alias inputs or constants.
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"

#include "array_compare.hpp"
#include "array_values.hpp"
#include "graph_builder.hpp"
#include "op_by_op.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

using namespace eqsat;
using namespace eqsat::test;

namespace {

const auto kF64 = DType::F64;
constexpr auto kAny = ops::kUnknownDim;

// tanh(log(exp(sin(x) * x) + c)): six fusable ops.
TermRef chain(TermRef x, TermRef c) {
  TermRef t = op(OpKind::Mul, {op(OpKind::Sin, {x}), x});
  return op(OpKind::Tanh, {op(OpKind::Log, {op(OpKind::Add, {op(OpKind::Exp, {t}), c})})});
}

}  // namespace

TEST_CASE("an elementwise chain becomes one instruction with the op-by-op result") {
  TermRef x = input("x", kF64, {kAny});
  TermRef c = input("c", kF64);
  TermRef y = chain(x, c);
  backend::Program fused = backend::compile(graph({x, c}, {y}));
  CHECK(fused.num_instructions() == 1);
  for (std::int64_t n : {0, 1, 7, 511, 512, 513, 1025, 5000}) {
    INFO("n " << n);
    const ops::Array xv = ramp({n}, 2.0);
    const ops::Array cv = ops::Array::scalar(kF64, 1.0);
    const ops::Array got = fused.run({xv, cv})[0];
    ops::Array want(kF64, {n});
    for (std::int64_t i = 0; i < n; ++i) {
      const double v = xv.data<double>()[i];
      want.data<double>()[i] = std::tanh(std::log(std::exp(std::sin(v) * v) + 1.0));
    }
    CHECK(test::compare_arrays(got, want) == "");
  }
}

TEST_CASE("f32 chains fuse too and compute in f32") {
  TermRef x = input("x", DType::F32, {kAny});
  TermRef y =
      op(OpKind::Sigmoid, {op(OpKind::Sub, {op(OpKind::Cos, {x}), op(OpKind::Square, {x})})});
  backend::Program p = backend::compile(graph({x}, {y}));
  CHECK(p.num_instructions() == 1);
  ops::Array xv(DType::F32, {1037});
  for (std::int64_t i = 0; i < xv.size(); ++i) xv.data<float>()[i] = std::sin(i * 0.37f) * 3;
  const ops::Array got = p.run({xv})[0];
  REQUIRE(got.dtype() == DType::F32);
  for (std::int64_t i = 0; i < xv.size(); ++i) {
    const double v = xv.data<float>()[i];
    CHECK(got.element(i) == Approx(1 / (1 + std::exp(-(std::cos(v) - v * v)))).epsilon(1e-5));
  }
}

TEST_CASE("a value read twice or an output ends a fused group") {
  TermRef x = input("x", kF64, {4});
  TermRef e = op(OpKind::Exp, {x});
  // e is read by two ops: it is computed once, its readers fuse separately.
  TermRef y = op(OpKind::Add, {op(OpKind::Sin, {e}), op(OpKind::Cos, {e})});
  backend::Program p = backend::compile(graph({x}, {y, e}));
  CHECK(p.num_instructions() == 2);
  const auto out = p.run({ramp({4}, 1.0)});
  for (int i = 0; i < 4; ++i) {
    const double ev = std::exp(std::sin(i * 0.37));
    CHECK(out[1].element(i) == Approx(ev));
    CHECK(out[0].element(i) == Approx(std::sin(ev) + std::cos(ev)));
  }
}

TEST_CASE("a row-repeated leaf joins the fused pass and a mismatch falls back op by op") {
  TermRef x = input("x", kF64, {kAny, kAny});
  TermRef r = input("r", kF64, {kAny});
  TermRef y = op(OpKind::Sqrt, {op(OpKind::Mul, {op(OpKind::Abs, {x}), op(OpKind::Exp, {r})})});
  backend::Program p = backend::compile(graph({x, r}, {y}));
  CHECK(p.num_instructions() == 1);
  const ops::Array xv = ramp({3, 4}, 3.0), rv = ramp({4}, 1.0);
  const ops::Array got = p.run({xv, rv})[0];
  REQUIRE(got.shape() == ops::Dims{3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      CHECK(got.element(i * 4 + j) ==
            Approx(std::sqrt(std::abs(xv.element(i * 4 + j)) * std::exp(rv.element(j)))));
  // A mismatch inside the group is reported at the op that fails.
  ops::Graph g = graph({x, r}, {y});
  g.locations[y->operand(0)] = {"fuse.eg", 5, 7};
  try {
    backend::compile(g).run({ramp({3, 4}, 1.0), ramp({5}, 1.0)});
    FAIL("no error");
  } catch (const backend::RuntimeError& e) {
    CHECK(std::string(e.what()) ==
          "fuse.eg:5:7: error: mul: shapes (3 4) and (5) do not broadcast");
  }
}

TEST_CASE("single-element leaves broadcast inside a fused pass") {
  TermRef x = input("x", kF64, {kAny, 3});
  TermRef one = input("one", kF64, {1, 1});
  TermRef y = op(OpKind::Exp, {op(OpKind::Mul, {x, one})});
  backend::Program p = backend::compile(graph({x, one}, {y}));
  CHECK(p.num_instructions() == 1);
  const ops::Array xv = ramp({2, 3}, 1.0);
  const ops::Array got = p.run({xv, ops::Array::filled(kF64, {1, 1}, 2.0)})[0];
  REQUIRE(got.shape() == ops::Dims{2, 3});
  for (int i = 0; i < 6; ++i) CHECK(got.element(i) == Approx(std::exp(2 * xv.element(i))));
  // A single element of higher rank than the rest widens the result.
  TermRef v = input("v", kF64, {kAny});
  TermRef z = op(OpKind::Exp, {op(OpKind::Mul, {v, one})});
  const ops::Array wide = backend::compile(graph({v, one}, {z}))
                              .run({vec({0, 1}), ops::Array::filled(kF64, {1, 1}, 1.0)})[0];
  CHECK(wide.shape() == ops::Dims{1, 2});
}

TEST_CASE("running again reuses every intermediate buffer - only outputs are new") {
  TermRef x = input("x", kF64, {64, 64});
  TermRef s = op(OpKind::Softmax, {op(OpKind::Dot, {x, op(OpKind::Transpose, {x})})});
  TermRef y = op(OpKind::Sum, {op(OpKind::Mul, {s, s})}, {{AttrKey::Axis, ops::IntList{1}}});
  backend::Program p = backend::compile(graph({x}, {y}));
  const ops::Array xv = ramp({64, 64}, 1.0);
  p.run({xv});
  const auto first = p.buffers_allocated();
  for (int r = 0; r < 3; ++r) p.run({xv});
  CHECK(p.buffers_allocated() == first + 3);  // one new output per run
  p.release_memory();
  p.run({xv});
  CHECK(p.buffers_allocated() == first * 2 + 3);  // everything allocated afresh
}

TEST_CASE("set_index on a dying value updates it in place - the input is never written") {
  TermRef x = input("x", kF64, {3});
  TermRef e = op(OpKind::Exp, {x});
  TermRef y = op(OpKind::SetIndex, {e, i64(1), f64(-1)});
  backend::Program p = backend::compile(graph({x}, {y}));
  const ops::Array xv = vec({0, 0, 0});
  p.run({xv});
  const auto before = p.buffers_allocated();
  const auto out = p.run({xv});
  CHECK(p.buffers_allocated() == before + 1);  // exp's buffer, then updated in place
  CHECK(values(out[0]) == std::vector<double>{1, -1, 1});
  CHECK(values(xv) == std::vector<double>{0, 0, 0});
  // An update of the input itself copies it.
  const auto copy =
      backend::compile(graph({x}, {op(OpKind::SetIndex, {x, i64(0), f64(5)})})).run({xv});
  CHECK(values(copy[0]) == std::vector<double>{5, 0, 0});
  CHECK(values(xv) == std::vector<double>{0, 0, 0});
}

TEST_CASE("outputs own their buffers: an input, a view of it, a constant, a repeat") {
  TermRef x = input("x", kF64, {2, 2});
  TermRef k = ops::Term::constant(ops::Array::filled(kF64, {2}, 7));
  TermRef r = op(OpKind::Reshape, {x}, {{AttrKey::Shape, ops::IntList{4}}});
  ops::Array xv = ramp({2, 2}, 1.0);
  auto out = backend::compile(graph({x}, {x, r, k, r})).run({xv});
  for (auto& o : out) CHECK(o.unique());
  out[0].data<double>()[0] = 100;
  out[2].data<double>()[0] = 100;
  CHECK(xv.element(0) == 0);
  CHECK(k->const_value()->element(0) == 7);
  CHECK(values(out[1]) == values(out[3]));
}

namespace {

ops::Attrs axis(std::int64_t a, bool keepdims) {
  return {{AttrKey::Axis, ops::IntList{a}}, {AttrKey::Keepdims, keepdims}};
}

}  // namespace

TEST_CASE("row broadcasts fuse: a per-row [N 1] leaf and a repeated [C] row") {
  // relu(x - m + bias) * 2 with m of shape (N 1), bias of shape (C).
  TermRef x = input("x", kF64, {kAny, kAny});
  TermRef m = input("m", kF64, {kAny, 1});
  TermRef bias = input("bias", kF64, {kAny});
  TermRef y =
      op(OpKind::Mul,
         {op(OpKind::Maximum, {op(OpKind::Add, {op(OpKind::Sub, {x, m}), bias}), f64(0)}), f64(2)});
  backend::Program p = backend::compile(graph({x, m, bias}, {y}));
  CHECK(p.num_instructions() == 1);
  for (auto [rows, cols] : {std::pair{3, 5}, {70, 1030}, {1, 2000}}) {
    const ops::Array xv = ramp({rows, cols}, 2.0), mv = ramp({rows, 1}, 1.0),
                     bv = ramp({cols}, 0.5);
    const ops::Array got = p.run({xv, mv, bv})[0];
    const auto all = backend::compile(unfused({x, m, bias}, y)).run({xv, mv, bv});
    CHECK(test::compare_arrays(got, all.back(), 0) == "");
  }
}

TEST_CASE("a reduction over trailing axes fuses with the elementwise work feeding it") {
  // sum(exp(x - max(x))) per row: the max, then one fused pass.
  TermRef x = input("x", kF64, {kAny, kAny});
  TermRef mx = op(OpKind::Max, {x}, axis(1, true));
  TermRef y = op(OpKind::Sum, {op(OpKind::Exp, {op(OpKind::Sub, {x, mx})})}, axis(1, false));
  backend::Program p = backend::compile(graph({x}, {y}));
  CHECK(p.num_instructions() == 2);
  for (auto [rows, cols] : {std::pair{4, 7}, {3, 1500}, {1, 100000}}) {
    const ops::Array xv = ramp({rows, cols}, 4.0);
    const ops::Array got = p.run({xv})[0];
    REQUIRE(got.shape() == ops::Dims{rows});
    // Bit for bit the unfused reduction (the same block order).
    const auto all = backend::compile(unfused({x}, y)).run({xv});
    CHECK(test::compare_arrays(got, all.back(), 0) == "");
    for (std::int64_t r = 0; r < rows; ++r) {
      double top = -INFINITY, total = 0;
      for (std::int64_t c = 0; c < cols; ++c) top = std::max(top, xv.element(r * cols + c));
      for (std::int64_t c = 0; c < cols; ++c) total += std::exp(xv.element(r * cols + c) - top);
      CHECK(got.element(r) == Approx(total));
    }
  }
}

TEST_CASE("fused mean max min and prod keep dims and match the unfused kernels") {
  TermRef x = input("x", kF64, {kAny, kAny, kAny});
  for (OpKind kind : {OpKind::Mean, OpKind::Max, OpKind::Min, OpKind::Prod}) {
    ops::Attrs attrs = {{AttrKey::Axis, ops::IntList{1, 2}}, {AttrKey::Keepdims, true}};
    TermRef y = op(kind, {op(OpKind::Cos, {op(OpKind::Mul, {x, f64(0.3)})})}, attrs);
    backend::Program p = backend::compile(graph({x}, {y}));
    CHECK(p.num_instructions() == 1);
    const ops::Array xv = ramp({3, 20, 40}, 2.0);
    const ops::Array got = p.run({xv})[0];
    CHECK(got.shape() == ops::Dims{3, 1, 1});
    const auto all = backend::compile(unfused({x}, y)).run({xv});
    CHECK(test::compare_arrays(got, all.back(), 0) == "");
  }
}

TEST_CASE("integer chains fuse and wrap around as their kernels do") {
  for (DType d : {DType::I32, DType::I64}) {
    TermRef x = input("x", d, {kAny});
    TermRef y = input("y", d, {kAny});
    // square(max(x * y, neg(x)) - 7) + sign(abs(y))
    TermRef seven = ops::Term::scalar(d, 7);
    TermRef z =
        op(OpKind::Add,
           {op(OpKind::Square,
               {op(OpKind::Sub,
                   {op(OpKind::Maximum, {op(OpKind::Mul, {x, y}), op(OpKind::Neg, {x})}), seven})}),
            op(OpKind::Sign, {op(OpKind::Abs, {y})})});
    backend::Program p = backend::compile(graph({x, y}, {z}));
    CHECK(p.num_instructions() == 1);
    const std::int64_t n = 3000;
    ops::Array xv(d, {n}), yv(d, {n});
    ops::visit_dtype(d, [&]<class T>(std::type_identity<T>) {
      for (std::int64_t i = 0; i < n; ++i) {  // some products overflow
        xv.data<T>()[i] = i % 5 == 0 ? std::numeric_limits<T>::max() : T(i * 7919 % 20011 - 10000);
        yv.data<T>()[i] = T(i * 104729 % 30011 - 15000);
      }
    });
    const ops::Array got = p.run({xv, yv})[0];
    const auto all = backend::compile(unfused({x, y}, z)).run({xv, yv});
    REQUIRE(got.nbytes() == all.back().nbytes());
    CHECK(std::memcmp(got.bytes(), all.back().bytes(), got.nbytes()) == 0);
  }
}

namespace {

// `a` with its last two dimensions swapped, copied element by element.
ops::Array swapped_last_two(const ops::Array& a) {
  ops::Dims d = a.shape();
  const std::size_t r = d.size();
  std::swap(d[r - 2], d[r - 1]);
  ops::Array out(a.dtype(), d);
  const std::int64_t rows = a.shape()[r - 2], cols = a.shape()[r - 1];
  for (std::int64_t b = 0; b < a.size() / (rows * cols); ++b)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        set_element(out, b * rows * cols + j * rows + i, a.element(b * rows * cols + i * cols + j));
  return out;
}

TermRef swap_last_two(TermRef t) {
  const auto r = static_cast<std::int64_t>(t->tensor_type().rank());
  ops::IntList perm;
  for (std::int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[r - 2], perm[r - 1]);
  return op(OpKind::Transpose, {t}, {{AttrKey::Perm, perm}});
}

}  // namespace

TEST_CASE("dot reads a transposed operand through the transpose flag without the copy") {
  struct Case {
    ops::Dims a, b;  // stored shapes
    bool ta, tb;     // transposed before the product
  };
  const std::vector<Case> cases = {{{5, 3}, {5, 4}, true, false},
                                   {{3, 5}, {4, 5}, false, true},
                                   {{5, 3}, {4, 5}, true, true},
                                   {{5, 3}, {5}, true, false},
                                   {{5}, {4, 5}, false, true},
                                   {{5, 1}, {5, 4}, true, false},
                                   {{2, 5, 3}, {5, 4}, true, false},
                                   {{2, 3, 5}, {1, 4, 5}, false, true},
                                   {{80, 70}, {80, 60}, true, false},
                                   {{70, 80}, {60, 80}, false, true},
                                   {{80, 70}, {60, 80}, true, true},
                                   {{700, 400}, {700}, true, false},
                                   {{700}, {400, 700}, false, true},
                                   {{700, 1}, {700, 400}, true, false},
                                   {{2, 80, 70}, {2, 60, 80}, true, true}};
  for (DType d : {DType::F64, DType::F32}) {
    for (const Case& c : cases) {
      INFO(ops::dims_to_string(c.a)
           << " " << ops::dims_to_string(c.b) << " " << c.ta << c.tb << " " << ops::dtype_name(d));
      TermRef a = input("a", d, c.a);
      TermRef b = input("b", d, c.b);
      TermRef y = op(OpKind::Dot, {c.ta ? swap_last_two(a) : a, c.tb ? swap_last_two(b) : b});
      backend::Program p = backend::compile(graph({a, b}, {y}));
      CHECK(p.num_instructions() == 1);  // no transpose left
      ops::Array av(d, c.a), bv(d, c.b);
      for (std::int64_t i = 0; i < av.size(); ++i) set_element(av, i, std::sin(i * 0.37));
      for (std::int64_t i = 0; i < bv.size(); ++i) set_element(bv, i, std::cos(i * 0.11));
      // The reference multiplies copies transposed beforehand.
      const ops::Array at = c.ta ? swapped_last_two(av) : av;
      const ops::Array bt = c.tb ? swapped_last_two(bv) : bv;
      TermRef a2 = input("a", d, at.shape());
      TermRef b2 = input("b", d, bt.shape());
      const auto want =
          backend::compile(graph({a2, b2}, {op(OpKind::Dot, {a2, b2})})).run({at, bt});
      CHECK(test::compare_arrays(p.run({av, bv})[0], want[0], 10) == "");
    }
  }
}

TEST_CASE("a transpose read by a dot and by another op is kept for the other") {
  TermRef a = input("a", kF64, {4, 3});
  TermRef b = input("b", kF64, {4, 2});
  TermRef at = swap_last_two(a);
  TermRef y = op(OpKind::Dot, {at, b});
  backend::Program p = backend::compile(graph({a, b}, {y, op(OpKind::Exp, {at})}));
  CHECK(p.num_instructions() == 3);
  const ops::Array av = ramp({4, 3}, 1.0), bv = ramp({4, 2}, 2.0);
  const auto got = p.run({av, bv});
  const ops::Array atv = swapped_last_two(av);
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 2; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < 4; ++k)
        s += atv.data<double>()[i * 4 + k] * bv.data<double>()[k * 2 + j];
      CHECK(got[0].data<double>()[i * 2 + j] == Approx(s));
    }
  CHECK(got[1].data<double>()[1] == Approx(std::exp(av.data<double>()[3])));
}

TEST_CASE("comparisons logical ops and where fuse with the chains around them") {
  // where(x > y and not (x == 3), x * y, -y) and the mask itself, as one
  // pass each, against the same computed element by element.
  for (DType d : {DType::F64, DType::F32, DType::I32, DType::I64}) {
    INFO(ops::dtype_name(d));
    TermRef x = input("x", d, {kAny});
    TermRef y = input("y", d, {kAny});
    TermRef three = ops::Term::scalar(d, 3);
    TermRef mask = op(OpKind::LogicalAnd, {op(OpKind::Gt, {x, y}),
                                           op(OpKind::LogicalNot, {op(OpKind::Eq, {x, three})})});
    TermRef z = op(OpKind::Where, {mask, op(OpKind::Mul, {x, y}), op(OpKind::Neg, {y})});
    TermRef m2 = op(OpKind::LogicalOr,
                    {op(OpKind::Le, {op(OpKind::Add, {x, y}), three}), op(OpKind::Ne, {x, y})});
    backend::Program p = backend::compile(graph({x, y}, {z}));
    CHECK(p.num_instructions() == 1);
    backend::Program pm =
        backend::compile(graph({x, y}, {op(OpKind::Lt, {op(OpKind::Add, {x, y}), three})}));
    CHECK(pm.num_instructions() == 1);
    const std::int64_t n = 2000;
    ops::Array xv(d, {n}), yv(d, {n});
    for (std::int64_t i = 0; i < n; ++i) {
      set_element(xv, i, i % 7 == 0 ? 3 : (i * 37 % 11) - 5);
      set_element(yv, i, (i * 13 % 9) - 4);
    }
    const ops::Array got = p.run({xv, yv})[0];
    const ops::Array lt = pm.run({xv, yv})[0];
    const ops::Array either = backend::compile(graph({x, y}, {m2})).run({xv, yv})[0];
    REQUIRE(got.dtype() == d);
    REQUIRE(lt.dtype() == DType::Bool);
    for (std::int64_t i = 0; i < n; ++i) {
      const double a = xv.element(i), b = yv.element(i);
      CHECK(got.element(i) == (a > b && a != 3 ? a * b : -b));
      CHECK(lt.element(i) == (a + b < 3 ? 1 : 0));
      CHECK(either.element(i) == (a + b <= 3 || a != b ? 1 : 0));
    }
  }
}

TEST_CASE("boolean chains fuse and a masked sum reads its operand once") {
  TermRef p = input("p", DType::Bool, {kAny});
  TermRef q = input("q", DType::Bool, {kAny});
  TermRef r = op(OpKind::LogicalOr, {op(OpKind::LogicalAnd, {p, op(OpKind::LogicalNot, {q})}),
                                     op(OpKind::Eq, {p, q})});
  backend::Program bp = backend::compile(graph({p, q}, {r}));
  CHECK(bp.num_instructions() == 1);
  TermRef x = input("x", kF64, {4, kAny});
  TermRef relu_sum = op(OpKind::Sum, {op(OpKind::Where, {op(OpKind::Gt, {x, f64(0)}), x, f64(0)})},
                        {{AttrKey::Axis, ops::IntList{1}}, {AttrKey::Keepdims, false}});
  backend::Program sp = backend::compile(graph({x}, {relu_sum}));
  CHECK(sp.num_instructions() == 1);
  const std::int64_t n = 1500;
  ops::Array pv(DType::Bool, {n}), qv(DType::Bool, {n});
  for (std::int64_t i = 0; i < n; ++i) {
    set_element(pv, i, i % 3 == 0);
    set_element(qv, i, i % 5 < 2);
  }
  const ops::Array got = bp.run({pv, qv})[0];
  REQUIRE(got.dtype() == DType::Bool);
  for (std::int64_t i = 0; i < n; ++i) {
    const bool a = i % 3 == 0, b = i % 5 < 2;
    CHECK(got.element(i) == ((a && !b) || a == b ? 1 : 0));
  }
  const ops::Array xv = ramp({4, 700}, 3.0);
  const ops::Array sums = sp.run({xv})[0];
  for (std::int64_t row = 0; row < 4; ++row) {
    double want = 0;
    for (std::int64_t j = 0; j < 700; ++j) want += std::max(xv.element(row * 700 + j), 0.0);
    CHECK(sums.element(row) == Approx(want));
  }
}

namespace {

// The activations a layer ends with, of v (a product plus its bias): relu,
// tanh, sigmoid, gelu's tanh form (v read four times: the bias add is then
// the product's epilogue, the rest a group of its own).
TermRef activation(int form, TermRef v, DType d) {
  auto c = [&](double x) { return ops::Term::scalar(d, x); };
  switch (form) {
    case 0:
      return op(OpKind::Maximum, {v, c(0)});
    case 1:
      return op(OpKind::Tanh, {v});
    case 2:
      return op(OpKind::Sigmoid, {v});
    default: {
      TermRef cube = op(OpKind::Mul, {op(OpKind::Square, {v}), v});
      TermRef inner = op(OpKind::Mul, {c(0.7978845608028654),
                                       op(OpKind::Add, {v, op(OpKind::Mul, {c(0.044715), cube})})});
      return op(OpKind::Mul,
                {op(OpKind::Mul, {c(0.5), v}), op(OpKind::Add, {c(1), op(OpKind::Tanh, {inner})})});
    }
  }
}

ops::Array random_array(DType d, const ops::Dims& shape, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  ops::Array a(d, shape);
  for (std::int64_t i = 0; i < a.size(); ++i) set_element(a, i, u(rng));
  return a;
}

bool same_bits(const ops::Array& a, const ops::Array& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0;
}

}  // namespace

TEST_CASE("a product's bias and activation run as its epilogue with the unfused result") {
  struct Case {
    ops::Dims a, b;  // stored shapes
    bool tb;         // b transposed before the product
    int bias;        // 0: a row (n), 1: a column (m 1), 2: the result's shape
  };
  // One block; rows split; columns split (an LSTM step); a few large
  // products each split; many small ones shared; a stack times a matrix;
  // a vector times a matrix; an empty inner dimension; short rows (one
  // pass refused at run time: the two run one after the other); a
  // product too small to split with a large result (its epilogue split);
  // blocks larger than a chunk (the epilogue after each chunk of rows).
  const std::vector<Case> cases = {
      {{37, 13}, {13, 70}, false, 0},       {{257, 65}, {65, 130}, false, 0},
      {{300, 200}, {250, 200}, true, 0},    {{16, 128}, {128, 512}, false, 0},
      {{16, 128}, {128, 512}, false, 1},    {{3, 100, 64}, {3, 64, 90}, false, 2},
      {{64, 12, 7}, {64, 7, 65}, false, 0}, {{5, 40, 30}, {30, 70}, false, 0},
      {{128}, {128, 300}, false, 0},        {{70, 0}, {0, 90}, false, 0},
      {{40, 30}, {30, 20}, false, 0},       {{1, 30}, {30, 100}, false, 2},
      {{600, 1}, {1, 400}, false, 0},       {{2400, 16}, {16, 700}, false, 0}};
  std::mt19937_64 rng(28);
  for (DType d : {DType::F32, DType::F64}) {
    for (const Case& c : cases) {
      for (int form = 0; form < 4; ++form) {
        INFO(ops::dims_to_string(c.a) << " " << ops::dims_to_string(c.b) << " bias " << c.bias
                                      << " form " << form << " " << ops::dtype_name(d));
        TermRef a = input("a", d, c.a);
        TermRef b = input("b", d, c.b);
        TermRef prod = op(OpKind::Dot, {a, c.tb ? swap_last_two(b) : b});
        const ops::Dims out = prod->tensor_type().dims;
        ops::Dims bias_shape{out.back()};
        if (c.bias == 1) bias_shape = {out[out.size() - 2], 1};
        // A (1 n) product against an (m n) addend is not the group's whole
        // shape: the two run one after the other.
        if (c.bias == 2) bias_shape = c.a[0] == 1 ? ops::Dims{6, out.back()} : out;
        TermRef bias = input("bias", d, bias_shape);
        TermRef y = activation(form, op(OpKind::Add, {prod, bias}), d);
        backend::Program fused = backend::compile(graph({a, b, bias}, {y}));
        // A second reader of the product keeps it out of any group.
        backend::Program apart = backend::compile(graph({a, b, bias}, {y, prod}));
        const std::vector<ops::Array> args = {random_array(d, c.a, rng), random_array(d, c.b, rng),
                                              random_array(d, bias_shape, rng)};
        fused.set_profiling(true);
        apart.set_profiling(true);
        const ops::Array got = fused.run(args)[0];
        const std::vector<ops::Array> want = apart.run(args);
        CHECK(same_bits(got, want[0]));
        CHECK(compare_arrays(got, want[0]) == "");
        const std::string label = fused.op_timings()[0].op;
        CHECK(label.starts_with(c.tb ? "dot(transposed: b, epilogue: add" : "dot(epilogue: add"));
        for (const auto& t : apart.op_timings()) CHECK(t.op.find("epilogue") == std::string::npos);
        CHECK(same_bits(fused.run(args)[0], got));  // again, buffers reused
      }
    }
  }
}

TEST_CASE("a product with an epilogue reports its own errors at its own position") {
  TermRef a = input("a", kF64, {kAny, kAny});
  TermRef b = input("b", kF64, {kAny, kAny});
  TermRef bias = input("bias", kF64, {kAny});
  TermRef prod = op(OpKind::Dot, {a, b});
  TermRef sum = op(OpKind::Add, {prod, bias});
  ops::Graph g = graph({a, b, bias}, {op(OpKind::Tanh, {sum})});
  g.locations[prod] = {"p.eg", 2, 3};
  g.locations[sum] = {"p.eg", 2, 9};
  backend::Program p = backend::compile(g);
  auto error_of = [&](std::int64_t k2, std::int64_t n_bias) {
    try {
      p.run({ops::Array(kF64, {4, 3}), ops::Array(kF64, {k2, 80}), ops::Array(kF64, {n_bias})});
    } catch (const backend::RuntimeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(5, 80) ==
        "p.eg:2:3: error: dot: inner dimensions differ: 3 and 5 for shapes (4 3) and (5 80)");
  CHECK(error_of(3, 7).starts_with("p.eg:2:9: error: add:"));
  CHECK(error_of(3, 80) == "no error");
}

TEST_CASE("a group reads slices of the last axis in place, with the values of the copies") {
  struct Window {
    std::optional<std::int64_t> start, stop;
  };
  // Windows of a row of 200: inside, from the end, clipped, the whole row,
  // empty, and narrower than a pass takes (then the group runs op by op).
  const std::vector<Window> windows = {{0, 128},           {64, 192},  {-72, std::nullopt},
                                       {std::nullopt, 90}, {150, 900}, {-900, 70},
                                       {0, 200},           {120, 120}, {10, 40}};
  std::mt19937_64 rng(26);
  for (DType d : {DType::F32, DType::F64}) {
    for (const ops::Dims& shape : {ops::Dims{200}, ops::Dims{16, 200}, ops::Dims{3, 5, 200}}) {
      for (std::size_t w = 0; w < windows.size(); ++w) {
        INFO(ops::dims_to_string(shape) << " window " << w << " " << ops::dtype_name(d));
        const Window& win = windows[w];
        auto slice = [&](TermRef x, std::int64_t shift) {
          ops::Attrs attrs{{AttrKey::Axis, static_cast<std::int64_t>(shape.size()) - 1}};
          if (win.start) attrs.set(AttrKey::Start, *win.start + shift);
          if (win.stop) attrs.set(AttrKey::Stop, *win.stop + shift);
          return op(OpKind::Slice, {x}, std::move(attrs));
        };
        TermRef x = input("x", d, shape);
        TermRef z = input("z", d, shape);
        TermRef c = input("c", d, slice(x, 0)->tensor_type().dims);
        // An LSTM's cell: windows of one operand (another of z where
        // shifting this one would change its width), a whole leaf.
        const bool shifts = win.start >= 0 && win.stop >= 0 && *win.stop < 200;
        TermRef s1 = slice(x, 0), s2 = shifts ? slice(x, 1) : slice(z, 0);
        TermRef y = op(OpKind::Add, {op(OpKind::Mul, {op(OpKind::Sigmoid, {s1}), c}),
                                     op(OpKind::Mul, {op(OpKind::Tanh, {s2}), c})});
        backend::Program fused = backend::compile(graph({x, z, c}, {y}));
        // Slices that are outputs too stay copies.
        backend::Program apart = backend::compile(graph({x, z, c}, {y, s1, s2}));
        CHECK(fused.num_instructions() == 1);
        CHECK(apart.num_instructions() == 3);
        const std::vector<ops::Array> args = {random_array(d, shape, rng),
                                              random_array(d, shape, rng),
                                              random_array(d, c->tensor_type().dims, rng)};
        const ops::Array got = fused.run(args)[0];
        CHECK(same_bits(got, apart.run(args)[0]));
        CHECK(same_bits(fused.run(args)[0], got));
      }
    }
  }
}

TEST_CASE("a sin and a cos of one source share a call in a fused group, with the op-by-op bits") {
  // sin(x) cos(x) + cos(w) - sin(w) + sin(x + c): a pair on each leaf, a
  // sin of a register without its cos; the last op's register is a pair's.
  for (const DType d : {DType::F64, DType::F32}) {
    TermRef x = input("x", d, {kAny});
    TermRef w = input("w", d, {kAny});
    TermRef c = input("c", d);
    TermRef pair = op(OpKind::Mul, {op(OpKind::Sin, {x}), op(OpKind::Cos, {x})});
    TermRef rotated = op(OpKind::Sub, {op(OpKind::Cos, {w}), op(OpKind::Sin, {w})});
    TermRef y = op(OpKind::Add,
                   {op(OpKind::Add, {pair, rotated}), op(OpKind::Sin, {op(OpKind::Add, {x, c})})});
    backend::Program fused = backend::compile(graph({x, w, c}, {y}));
    CHECK(fused.num_instructions() == 1);
    for (std::int64_t n : {1, 13, 512, 1300}) {
      INFO("dtype " << ops::dtype_name(d) << ", n " << n);
      ops::Array xv(d, {n}), wv(d, {n});
      for (std::int64_t i = 0; i < n; ++i) {
        const double v = std::sin(i * 0.37) * (i % 5 == 0 ? 3e6 : 20.0);  // some beyond 2^20
        if (d == DType::F64) {
          xv.data<double>()[i] = v;
          wv.data<double>()[i] = v * 0.5 - 1;
        } else {
          xv.data<float>()[i] = static_cast<float>(v);
          wv.data<float>()[i] = static_cast<float>(v * 0.5 - 1);
        }
      }
      const ops::Array cv = ops::Array::filled(d, {}, 0.75);
      const ops::Array got = fused.run({xv, wv, cv})[0];
      const auto all = backend::compile(unfused({x, w, c}, y)).run({xv, wv, cv});
      CHECK(test::compare_arrays(got, all.back(), 0) == "");
    }
  }
}

TEST_CASE("a dot's transpose that brings the last axis next to last copies whole rows") {
  // (transpose y :perm P) with P[r - 2] = r - 1 is the swap of the last
  // two axes of a transpose keeping the last axis: the dot reads that
  // copy with its flag. The product equals the dot of the copy made apart.
  struct Case {
    ops::Dims a, b;     // stored shapes
    ops::IntList perm;  // of a (ta) or of b
    bool ta;
  };
  const std::vector<Case> cases = {{{4, 10, 16}, {128, 4, 16}, {1, 2, 0}, false},
                                   {{7, 2, 5}, {2, 7, 3}, {1, 2, 0}, true},
                                   {{2, 3, 6, 4}, {2, 9, 3, 4}, {0, 2, 3, 1}, false},
                                   {{40, 3, 60}, {3, 40, 50}, {1, 2, 0}, true}};
  for (DType d : {DType::F64, DType::F32}) {
    for (const Case& c : cases) {
      INFO(ops::dims_to_string(c.a)
           << " " << ops::dims_to_string(c.b) << " " << c.ta << " " << ops::dtype_name(d));
      TermRef a = input("a", d, c.a);
      TermRef b = input("b", d, c.b);
      const ops::Attrs perm{{AttrKey::Perm, c.perm}};
      TermRef moved = op(OpKind::Transpose, {c.ta ? a : b}, perm);
      backend::Program p =
          backend::compile(graph({a, b}, {op(OpKind::Dot, {c.ta ? moved : a, c.ta ? b : moved})}));
      backend::Program copy = backend::compile(graph({a, b}, {moved}));
      std::mt19937_64 rng(3);
      const std::vector<ops::Array> args = {random_array(d, c.a, rng), random_array(d, c.b, rng)};
      const ops::Array moved_value = copy.run(args)[0];
      TermRef m = input("m", d, moved_value.shape());
      TermRef other = input("o", d, c.ta ? c.b : c.a);
      const ops::Array want =
          backend::compile(
              graph({m, other}, {op(OpKind::Dot, {c.ta ? m : other, c.ta ? other : m})}))
              .run({moved_value, c.ta ? args[1] : args[0]})[0];
      p.set_profiling(true);
      CHECK(compare_arrays(p.run(args)[0], want, 10) == "");
      REQUIRE(p.op_timings().size() == 2);
      CHECK(p.op_timings()[0].op.starts_with("transpose"));
      CHECK(p.op_timings()[1].op.starts_with(c.ta ? "dot(transposed: a" : "dot(transposed: b"));
    }
  }
}
