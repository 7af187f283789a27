// Constant folding of small arrays, compared with the CPU executor on the
// same constants: elementwise ops with broadcasting, and element-reordering
// shape ops.
#include "rules/tensor/const_fold.hpp"
#include "rules/pipeline/optimize.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/graph_parser.hpp"
#include "ops/term.hpp"
#include "ops/type_error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

using namespace eqsat;
using namespace eqsat::rules;
using ops::OpKind;

namespace {

ops::Array random_const(const ops::Dims& shape, ops::DType d, std::mt19937_64& rng) {
  ops::Array a(d, shape);
  std::uniform_real_distribution<double> u(-3, 3);
  for (std::int64_t i = 0; i < a.size(); ++i)
    ops::visit_dtype(d, [&]<class T>(std::type_identity<T>) {
      a.data<T>()[i] = static_cast<T>(std::is_integral_v<T> ? std::round(u(rng)) : u(rng));
    });
  return a;
}

// Folds `t` (over constants) and compares with the executor, bit for bit.
bool agrees_with_executor(ops::TermRef t) {
  std::vector<const ops::Array*> xs;
  for (ops::TermRef o : t->operands()) xs.push_back(o->const_value());
  const auto folded = fold_constant(t->kind(), t->attrs(), xs, t->tensor_type());
  REQUIRE(folded.has_value());
  const ops::Array e = backend::evaluate({t}, {})[0];
  REQUIRE(e.shape() == folded->shape());
  // The kernel's own value: the same bytes (NaN payloads included).
  return e.dtype() == folded->dtype() && std::memcmp(e.bytes(), folded->bytes(), e.nbytes()) == 0;
}

}  // namespace

TEST_CASE("folded broadcasting binary ops agree with the executor") {
  std::mt19937_64 rng(9);
  const std::vector<ops::Dims> shapes = {{}, {3}, {1, 3}, {2, 1}, {2, 3}, {4, 2, 3}};
  const OpKind ops_to_try[] = {OpKind::Add,     OpKind::Sub, OpKind::Mul, OpKind::Div,
                               OpKind::Maximum, OpKind::Lt,  OpKind::Pow};
  std::size_t checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto& sa = shapes[std::uniform_int_distribution<std::size_t>(0, shapes.size() - 1)(rng)];
    const auto& sb = shapes[std::uniform_int_distribution<std::size_t>(0, shapes.size() - 1)(rng)];
    const auto da = static_cast<ops::DType>(std::uniform_int_distribution<int>(1, 4)(rng));
    const auto db = static_cast<ops::DType>(std::uniform_int_distribution<int>(1, 4)(rng));
    const OpKind k = ops_to_try[trial % std::size(ops_to_try)];
    ops::TermRef t;
    try {
      t = ops::Term::make(k, {},
                          {ops::Term::constant(random_const(sa, da, rng)),
                           ops::Term::constant(random_const(sb, db, rng))});
    } catch (const ops::TypeError&) {
      continue;
    }
    if (k == OpKind::Pow && !ops::is_float(t->tensor_type().dtype)) continue;  // negative powers
    INFO(ops::op_name(k) << " of " << ops::to_string(t->operand(0)->type()) << " and "
                         << ops::to_string(t->operand(1)->type()));
    CHECK(agrees_with_executor(t));
    ++checked;
  }
  CHECK(checked > 100);
}

TEST_CASE("folded transposes, reshapes and broadcasts agree with the executor") {
  std::mt19937_64 rng(4);
  const auto x = ops::Term::constant(random_const({2, 3, 4}, ops::DType::F64, rng));
  for (const ops::IntList& perm : {ops::IntList{2, 1, 0}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}})
    CHECK(agrees_with_executor(
        ops::Term::make(OpKind::Transpose, {{ops::AttrKey::Perm, perm}}, {x})));
  CHECK(agrees_with_executor(
      ops::Term::make(OpKind::Reshape, {{ops::AttrKey::Shape, ops::IntList{4, -1}}}, {x})));
  const auto row = ops::Term::constant(random_const({1, 4}, ops::DType::I32, rng));
  CHECK(agrees_with_executor(
      ops::Term::make(OpKind::BroadcastTo, {{ops::AttrKey::Shape, ops::IntList{3, 4}}}, {row})));
}

TEST_CASE("folded reductions, softmax, dot and indexing agree with the executor") {
  std::mt19937_64 rng(12);
  const auto x = ops::Term::constant(random_const({2, 3, 4}, ops::DType::F64, rng));
  const auto m = ops::Term::constant(random_const({4, 2}, ops::DType::F64, rng));
  const auto n = ops::Term::constant(random_const({3}, ops::DType::I64, rng));
  using ops::AttrKey;
  for (OpKind k :
       {OpKind::Sum, OpKind::Prod, OpKind::Max, OpKind::Min, OpKind::Mean, OpKind::Logsumexp})
    for (const ops::IntList& axes : {ops::IntList{0}, {1, 2}, {0, 1, 2}}) {
      INFO(ops::op_name(k));
      CHECK(agrees_with_executor(ops::Term::make(k, {{AttrKey::Axis, axes}}, {x})));
    }
  CHECK(agrees_with_executor(ops::Term::make(OpKind::Sum, {}, {n})));
  CHECK(agrees_with_executor(
      ops::Term::make(OpKind::Softmax, {{AttrKey::Axis, std::int64_t{1}}}, {x})));
  CHECK(agrees_with_executor(ops::Term::make(OpKind::LogSoftmax, {}, {x})));
  CHECK(agrees_with_executor(ops::Term::make(OpKind::Dot, {}, {x, m})));
  CHECK(agrees_with_executor(
      ops::Term::make(OpKind::Index, {}, {x, ops::Term::scalar(ops::DType::I64, -1)})));
  CHECK(agrees_with_executor(ops::Term::make(OpKind::Slice,
                                             {{AttrKey::Axis, std::int64_t{2}},
                                              {AttrKey::Start, std::int64_t{1}},
                                              {AttrKey::Step, std::int64_t{2}}},
                                             {x})));
  CHECK(
      agrees_with_executor(ops::Term::make(OpKind::Flip, {{AttrKey::Axis, std::int64_t{1}}}, {x})));
}

TEST_CASE("an index out of range is not folded") {
  const auto x = ops::Term::constant(ops::Array::filled(ops::DType::F64, {3}, 1));
  const auto t = ops::Term::make(OpKind::Index, {}, {x, ops::Term::scalar(ops::DType::I64, 2)});
  std::vector<const ops::Array*> xs = {x->const_value(), nullptr};
  const ops::Array five = ops::Array::filled(ops::DType::I64, {}, 5);
  xs[1] = &five;
  CHECK_FALSE(fold_constant(OpKind::Index, t->attrs(), xs, t->tensor_type()).has_value());
}

TEST_CASE("integers past 2^53 fold exactly as the executor computes them") {
  for (const char* e : {"(mul 3 1537228672809129302)", "(add 1 1537228672809129302)",
                        "(neg (mul 2 4611686018427387903))", "(square 3037000499)",
                        "(transpose (const (i64 2) (9007199254740993 -9007199254740995)))",
                        "(sub (const (i64 2) (9007199254740993 3)) 1)"}) {
    INFO(e);
    const ops::Graph g = ops::parse_graph(std::string("(output ") + e + ")", "t.eg", ".");
    const ops::Graph opt = optimize(g, load_default_rules());
    const ops::Array want = backend::compile(g).run({})[0];
    const ops::Array got = backend::compile(opt).run({})[0];
    REQUIRE(want.shape() == got.shape());
    for (std::int64_t i = 0; i < want.size(); ++i)
      CHECK(got.data<std::int64_t>()[i] == want.data<std::int64_t>()[i]);
  }
}
