// Matrix chains: with the linalg rules the e-graph holds every bracketing,
// and extraction finds the cheapest one — the same cost as the classic
// dynamic program over bracketings with the backend's cost model, on many
// random chains.
#include "rules/tensor/extract_graph.hpp"
#include "rules/pipeline/optimize.hpp"

#include "ops/graph_parser.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace eqsat;
using namespace eqsat::rules;

namespace {

double dot_cost(std::int64_t m, std::int64_t k, std::int64_t n, const backend::CostModel& model) {
  const ops::TensorType a{ops::DType::F64, {m, k}}, b{ops::DType::F64, {k, n}};
  const ops::Type operands[] = {a, b};
  return node_cost(ops::OpKind::Dot, operands, ops::TensorType{ops::DType::F64, {m, n}}, model);
}

// The cheapest bracketing of matrices with dims d[0] x d[1], d[1] x d[2], ...
double best_chain_cost(const std::vector<std::int64_t>& d, const backend::CostModel& model) {
  const std::size_t n = d.size() - 1;
  std::vector<std::vector<double>> best(n, std::vector<double>(n, 0));
  for (std::size_t len = 2; len <= n; ++len)
    for (std::size_t i = 0; i + len <= n; ++i) {
      const std::size_t j = i + len - 1;
      best[i][j] = std::numeric_limits<double>::infinity();
      for (std::size_t k = i; k < j; ++k)
        best[i][j] = std::min(
            best[i][j], best[i][k] + best[k + 1][j] + dot_cost(d[i], d[k + 1], d[j + 1], model));
    }
  return best[0][n - 1];
}

}  // namespace

TEST_CASE("matrix chains are bracketed optimally") {
  const RuleProgram rules = load_default_rules();
  const backend::CostModel model;
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    std::mt19937_64 rng(seed);
    const int n = std::uniform_int_distribution<int>(3, 6)(rng);
    std::vector<std::int64_t> d;
    for (int i = 0; i <= n; ++i) d.push_back(std::uniform_int_distribution<int>(1, 300)(rng));
    std::string text, chain = "m0";
    for (int i = 0; i < n; ++i)
      text += "(input m" + std::to_string(i) + " (f64 " + std::to_string(d[i]) + " " +
              std::to_string(d[i + 1]) + "))";
    for (int i = 1; i < n; ++i) chain = "(dot " + chain + " m" + std::to_string(i) + ")";
    INFO("seed " << seed << ": " << text << " " << chain);
    OptimizeReport report;
    optimize(ops::parse_graph(text + "(output " + chain + ")", "chain.eg", "."), rules, &report);
    CHECK(report.cost_after == Approx(best_chain_cost(d, model)).epsilon(1e-9));
  }
}
