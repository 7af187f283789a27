// Property test: random graphs of elementwise ops (with broadcasting) and
// reductions (random axes, keepdims) over random inputs, for many seeds,
// against a naive reference evaluator written here: one loop per element
// with explicit index arithmetic, no broadcasting plan, no Eigen.
#include "backend/program.hpp"

#include "array_compare.hpp"
#include "graph_builder.hpp"

#include "ops/type_error.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

using namespace eqsat;
using namespace eqsat::test;

namespace {

// A value of the reference evaluator: f64 elements in row-major order.
struct Ref {
  ops::Dims shape;
  std::vector<double> v;
};

std::int64_t count(const ops::Dims& d) {
  std::int64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

// Multi-index of flat position i in shape d.
std::vector<std::int64_t> unflatten(std::int64_t i, const ops::Dims& d) {
  std::vector<std::int64_t> idx(d.size());
  for (std::size_t k = d.size(); k-- > 0;) {
    idx[k] = i % d[k];
    i /= d[k];
  }
  return idx;
}

// Flat position in `d` of the (right-aligned, broadcast) multi-index.
std::int64_t broadcast_flat(const std::vector<std::int64_t>& idx, const ops::Dims& d) {
  std::int64_t at = 0;
  const std::size_t shift = idx.size() - d.size();
  for (std::size_t k = 0; k < d.size(); ++k) at = at * d[k] + (d[k] == 1 ? 0 : idx[shift + k]);
  return at;
}

// The ops the graphs are drawn from, each with its reference math: the
// generator and the evaluator read one table, so an op drawn has its math.
struct UnaryRef {
  OpKind op;
  double (*f)(double);
};
constexpr UnaryRef kUnary[] = {
    {OpKind::Neg, [](double x) { return -x; }},
    {OpKind::Abs, [](double x) { return std::abs(x); }},
    {OpKind::Tanh, [](double x) { return std::tanh(x); }},
    {OpKind::Sin, [](double x) { return std::sin(x); }},
    {OpKind::Square, [](double x) { return x * x; }},
    {OpKind::Sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }},
    {OpKind::Exp, [](double x) { return std::exp(x); }},
};
struct BinaryRef {
  OpKind op;
  double (*f)(double, double);
};
constexpr BinaryRef kBinary[] = {
    {OpKind::Add, [](double a, double b) { return a + b; }},
    {OpKind::Sub, [](double a, double b) { return a - b; }},
    {OpKind::Mul, [](double a, double b) { return a * b; }},
    {OpKind::Maximum,
     [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }},
    {OpKind::Minimum,
     [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }},
};

// The entry of `table` for op k (the test's graphs hold no other op).
template <class Entry, std::size_t N>
const Entry& math_of(const Entry (&table)[N], OpKind k) {
  for (const Entry& e : table)
    if (e.op == k) return e;
  throw std::logic_error("the reference evaluator has no math for this op");
}

Ref reference(TermRef t, std::map<TermRef, Ref>& memo) {
  if (auto it = memo.find(t); it != memo.end()) return it->second;
  Ref out;
  out.shape = t->tensor_type().dims;
  const std::int64_t n = count(out.shape);
  out.v.resize(n);
  if (ops::is_elementwise(t->kind()) && t->arity() == 1) {
    const Ref a = reference(t->operand(0), memo);
    for (std::int64_t i = 0; i < n; ++i) out.v[i] = math_of(kUnary, t->kind()).f(a.v[i]);
  } else if (ops::is_elementwise(t->kind())) {
    const Ref a = reference(t->operand(0), memo), b = reference(t->operand(1), memo);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto idx = unflatten(i, out.shape);
      out.v[i] = math_of(kBinary, t->kind())
                     .f(a.v[broadcast_flat(idx, a.shape)], b.v[broadcast_flat(idx, b.shape)]);
    }
  } else {  // sum, max, mean over :axis
    const Ref a = reference(t->operand(0), memo);
    const auto& axes = t->attrs().get<ops::IntList>(AttrKey::Axis);
    const bool keep = t->attrs().get<bool>(AttrKey::Keepdims);
    const bool is_max = t->kind() == OpKind::Max;
    std::vector<double> acc(n, is_max ? -INFINITY : 0.0);
    std::vector<bool> nan(n, false);
    std::int64_t reduced = 1;
    for (auto ax : axes) reduced *= a.shape[ax];
    for (std::int64_t i = 0; i < count(a.shape); ++i) {
      const auto idx = unflatten(i, a.shape);
      std::int64_t at = 0;
      for (std::size_t k = 0; k < idx.size(); ++k) {
        const bool r = std::ranges::find(axes, static_cast<std::int64_t>(k)) != axes.end();
        if (!r)
          at = at * a.shape[k] + idx[k];
        else if (keep)
          at = at * 1;
      }
      if (std::isnan(a.v[i])) nan[at] = true;
      acc[at] = is_max ? std::max(acc[at], a.v[i]) : acc[at] + a.v[i];
    }
    for (std::int64_t i = 0; i < n; ++i) {
      out.v[i] = t->kind() == OpKind::Mean ? acc[i] / static_cast<double>(reduced) : acc[i];
      if (nan[i] && is_max) out.v[i] = NAN;
    }
  }
  memo[t] = out;
  return out;
}

constexpr OpKind kReduce[] = {OpKind::Sum, OpKind::Max, OpKind::Mean};

}  // namespace

TEST_CASE("random elementwise and reduction graphs agree with a naive evaluator") {
  for (unsigned seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    auto pick = [&](auto n) { return static_cast<std::size_t>(rng() % n); };
    // A base shape; inputs take it with some dims set to 1 or dropped.
    ops::Dims base(pick(4));
    for (auto& d : base) d = 1 + static_cast<std::int64_t>(pick(9));
    std::vector<TermRef> inputs, pool;
    std::vector<std::pair<TermRef, ops::Array>> bindings;
    std::uniform_real_distribution<double> value(-2, 2);
    for (int i = 0; i < 3; ++i) {
      ops::Dims d(base.begin() + pick(base.size() + 1), base.end());
      for (auto& x : d)
        if (pick(3) == 0) x = 1;
      TermRef in = input(fmt::format("x{}", i), DType::F64, d);
      ops::Array a(DType::F64, d);
      for (std::int64_t k = 0; k < a.size(); ++k) a.data<double>()[k] = value(rng);
      inputs.push_back(in);
      pool.push_back(in);
      bindings.emplace_back(in, a);
    }
    for (int step = 0; step < 8; ++step) {
      const std::size_t kind = pick(10);
      TermRef a = pool[pick(pool.size())];
      TermRef made = nullptr;
      if (kind < 4) {
        made = op(kUnary[pick(std::size(kUnary))].op, {a});
      } else if (kind < 8) {
        try {
          made = op(kBinary[pick(std::size(kBinary))].op, {a, pool[pick(pool.size())]});
        } catch (const ops::TypeError&) {
          continue;  // shapes that do not broadcast: not a graph
        }
      } else if (a->tensor_type().rank() > 0) {
        ops::IntList axes;
        for (int k = 0; k < a->tensor_type().rank(); ++k)
          if (pick(2) == 0) axes.push_back(k);
        made = op(kReduce[pick(std::size(kReduce))], {a},
                  {{AttrKey::Axis, axes}, {AttrKey::Keepdims, pick(2) == 0}});
      }
      if (made) pool.push_back(made);
    }
    const std::vector<TermRef> outputs{pool.back(), pool[pool.size() / 2]};
    const auto got = backend::evaluate(outputs, bindings);
    std::map<TermRef, Ref> memo;
    for (std::size_t k = 0; k < bindings.size(); ++k)
      memo[bindings[k].first] = {bindings[k].second.shape(), values(bindings[k].second)};
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const Ref want = reference(outputs[o], memo);
      ops::Array w(DType::F64, want.shape);
      std::copy(want.v.begin(), want.v.end(), w.data<double>());
      CHECK(compare_arrays(got[o], w, 100) == "");
    }
  }
}
