// Constant folding of elementwise ops on scalars: compared with the CPU
// executor on the same scalars for every elementwise op and dtype.
#include "rules/tensor/scalar_eval.hpp"

#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/term.hpp"
#include "ops/type_error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

using namespace eqsat;
using namespace eqsat::rules;
using ops::DType;
using ops::OpKind;

TEST_CASE("integer arithmetic wraps around and promotes as the type rules say") {
  const double max32 = std::numeric_limits<std::int32_t>::max();
  const TypedScalar a{DType::I32, max32}, one{DType::I32, 1};
  const TypedScalar xs[] = {a, one};
  CHECK(eval_scalar(OpKind::Add, xs, DType::I32) == std::numeric_limits<std::int32_t>::min());
  CHECK(eval_scalar(OpKind::Div, xs, DType::F64) == max32);
  const TypedScalar p[] = {{DType::I64, 3}, {DType::I64, 4}};
  CHECK(eval_scalar(OpKind::Pow, p, DType::I64) == 81);
  const TypedScalar neg_exp[] = {{DType::I64, 3}, {DType::I64, -1}};
  CHECK_FALSE(eval_scalar(OpKind::Pow, neg_exp, DType::I64).has_value());
  CHECK(convert_scalar(-2.7, DType::I32) == -2);
  CHECK(convert_scalar(0.5, DType::Bool) == 1);
}

TEST_CASE("folding gives the executor's bits on every elementwise op and dtype") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  std::size_t compared = 0;
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const auto group = ops::op_info(kind).group;
    if (group != ops::OpGroup::Unary && group != ops::OpGroup::Binary) continue;
    if (kind == OpKind::Cast) continue;
    for (int trial = 0; trial < 40; ++trial) {
      const int arity = group == ops::OpGroup::Unary ? 1 : 2;
      std::vector<ops::TermRef> operands;
      std::vector<TypedScalar> scalars;
      for (int i = 0; i < arity; ++i) {
        const auto d = static_cast<DType>(std::uniform_int_distribution<int>(0, 4)(rng));
        const double v = ops::is_float(d)   ? u(rng)
                         : d == DType::Bool ? trial % 2
                                            : std::round(u(rng));
        operands.push_back(ops::Term::scalar(d, v));
        scalars.push_back({d, convert_scalar(v, d)});
      }
      ops::TermRef t;
      try {
        t = ops::Term::make(kind, {}, operands);
      } catch (const ops::TypeError&) {
        continue;
      }
      const auto folded = eval_scalar(kind, scalars, t->tensor_type().dtype);
      if (!folded) continue;
      std::vector<ops::Array> out;
      try {
        out = backend::evaluate({t}, {});
      } catch (const backend::RuntimeError&) {
        continue;
      }
      const double e = out[0].element(0);
      INFO(ops::op_name(kind) << " on " << ops::to_string(t->type()) << ": executor " << e
                              << ", folded " << *folded);
      // Folding runs the kernels' scalar code: the same bits.
      CHECK(((std::isnan(e) && std::isnan(*folded)) || e == *folded));
      ++compared;
    }
  }
  CHECK(compared > 500);
}

// The test above skips what eval_scalar does not fold: here every
// elementwise op of the catalogue must fold on floats (a where on a bool).
TEST_CASE("every elementwise op of the catalogue has a scalar evaluation") {
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (!ops::is_elementwise(kind)) continue;
    INFO("op " << ops::op_name(kind));
    std::vector<TypedScalar> xs;
    if (ops::op_info(kind).group == ops::OpGroup::Select) xs.push_back({DType::Bool, 1});
    while (static_cast<int>(xs.size()) < ops::op_info(kind).min_arity)
      xs.push_back({DType::F64, 0.25 * static_cast<double>(xs.size() + 1)});
    CHECK(eval_scalar(kind, xs, DType::F64).has_value());
  }
}
