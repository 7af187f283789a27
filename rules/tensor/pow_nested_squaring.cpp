#include "rules/tensor/pow_nested_squaring.hpp"

#include "rules/tensor/op_class_searcher.hpp"

#include <cmath>
#include <optional>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;

namespace {

// Exponents past this stay `pow`: the chain would cost more than pow.
constexpr double kMaxExponent = 1024;

// Merges each float `pow(x, n)` class with its chain of squarings.
class PowSquaringApplier final : public egraph::Applier {
 public:
  explicit PowSquaringApplier(TensorEGraph& g) : g_(g) {}

  bool apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) override {
    bool changed = false;
    const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
    for (egraph::ENodeId n : nodes) {
      if (g_.kind(n) != OpKind::Pow) continue;
      const EClassId x = eg.children(n)[0], e = eg.children(n)[1];
      const std::optional<double> u = g_.data(e).uniform;
      const TensorData& xd = g_.data(x);
      const TensorData& yd = g_.data(eg.class_of(n));
      if (!u || std::trunc(*u) != *u || std::abs(*u) < 3 || std::abs(*u) > kMaxExponent ||
          !xd.is_tensor() || !yd.is_tensor() || !ops::is_float(xd.tensor_type().dtype) ||
          xd.tensor_type() != yd.tensor_type())
        continue;
      if (auto chain = power(x, static_cast<std::int64_t>(std::abs(*u)), *u < 0))
        changed |= eg.merge(eg.class_of(n), *chain);
    }
    return changed;
  }
  std::string to_string() const override { return "pow-nested-squaring"; }

 private:
  std::optional<EClassId> unary(OpKind k, EClassId a) {
    const EClassId kids[] = {a};
    return g_.add_op(k, {}, kids);
  }

  // xᵏ by binary powering (its reciprocal when `inverse`).
  std::optional<EClassId> power(EClassId x, std::int64_t k, bool inverse) {
    std::optional<EClassId> result, square = x;
    for (; k > 0 && square; k >>= 1) {
      if (k & 1) {
        if (result) {
          const EClassId kids[] = {*result, *square};
          result = g_.add_op(OpKind::Mul, {}, kids);
        } else {
          result = square;
        }
      }
      if (k > 1) square = unary(OpKind::Square, *square);
    }
    if (result && inverse) result = unary(OpKind::Reciprocal, *result);
    return result;
  }

  TensorEGraph& g_;
};

}  // namespace

egraph::Rewrite make_pow_nested_squaring(TensorEGraph& g) {
  return egraph::Rewrite(
      "pow-nested-squaring",
      std::make_shared<OpClassSearcher>(std::vector<OpKind>{OpKind::Pow}, "(pow ?x N)"),
      std::make_shared<PowSquaringApplier>(g));
}

}  // namespace eqsat::rules
