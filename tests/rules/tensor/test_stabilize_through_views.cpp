// The stabilize-through-views built-in applier
// (rules/tensor/stabilize_through_views.hpp, the views rule set): a stabilization applies through
// index, slice, transpose, reshape, broadcast_to, expand_dims, squeeze and flip — log(slice(softmax
// x)) is slice(log_softmax x) — finite where the written form is −∞ (PyTensor stabilizes these
// through its subtensor lifts).
#include "tests/support/check_optimizes.hpp"

#include <limits>

using namespace eqsat;
using namespace eqsat::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

ops::Array matrix(ops::Dims dims, std::vector<double> v) {
  ops::Array a(ops::DType::F64, std::move(dims));
  for (std::size_t i = 0; i < v.size(); ++i) a.data<double>()[i] = v[i];
  return a;
}
}  // namespace

TEST_CASE("views: log of a view of softmax is the view of log_softmax", "[rules][views]") {
  const std::string in = "(input x (f64 3))\n";
  check_optimizes(in + "(output (log (slice (softmax x :axis 0) :axis 0 :start 1)))",
                  in + "(output (slice (log_softmax x :axis 0) :axis 0 :start 1))");
  check_optimizes(in + "(output (log (index (softmax x :axis 0) 2)))",
                  in + "(output (index (log_softmax x :axis 0) 2))");
  check_optimizes(in + "(output (log (flip (softmax x :axis 0) :axis 0)))",
                  in + "(output (flip (log_softmax x :axis 0) :axis 0))");
  // −1000 − 1000 = −2000, where the written form gives log 0 = −∞.
  const ops::Array got =
      run_optimized(in + "(output (log (slice (softmax x :axis 0) :axis 0 :start 1)))",
                    {f64_vector({1000, 0, -1000})});
  CHECK(got.element(0) == Approx(-1000));
  CHECK(got.element(1) == Approx(-2000));
}

TEST_CASE("views: log of a transpose or reshape of sigmoid and sums of exp", "[rules][views]") {
  const std::string in = "(input m (f64 2 3))\n";
  const ops::Array at = matrix({2, 3}, {-800, 0, 800, 1, -kInf, kInf});
  for (const char* g : {"(log (transpose (sigmoid m)))", "(log (reshape (sigmoid m) :shape (3 2)))",
                        "(log (expand_dims (sigmoid m) :axis 0))",
                        "(log (broadcast_to (sigmoid m) :shape (4 2 3)))"}) {
    INFO(g);
    const std::string text = in + "(output " + g + ")";
    const ops::Graph out = optimized(graph(text));
    CHECK(!contains(out.outputs[0].term, ops::OpKind::Sigmoid));
    const ops::Array got = run_optimized(text, {at});
    CHECK(std::isfinite(got.element(0)));  // log σ(−800) = −800, not −∞
  }
  const std::string lse = in + "(output (log (index (sum (exp m) :axis 1) 0)))";
  // The row alone is reduced (index-lift).
  check_optimizes(lse, in + "(output (logsumexp (index m 0) :axis (0)))");
  check_same_values(shipped_rules(), in + "(output (exp (transpose (log_softmax m :axis 1))))",
                    {matrix({2, 3}, {1, 2, 3, -kInf, 0, kInf})});
}
