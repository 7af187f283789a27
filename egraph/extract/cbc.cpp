#include "egraph/extract/cbc.hpp"

#include "egraph/extract/child_with_deadline.hpp"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

namespace eqsat::egraph::ilp {

namespace {

// Above this many node variables, CBC's preprocessing is switched off.
constexpr std::size_t kPreprocessMaxNodeColumns = 6000;

struct CbcDeleter {
  void operator()(Cbc_Model* model) const { Cbc_deleteModel(model); }
};

// A result as bytes for the pipe: found, proven, count, then the columns.
std::vector<char> encode(const CbcResult& result) {
  const std::int32_t header[3] = {result.found, result.proven,
                                  static_cast<std::int32_t>(result.node_columns.size())};
  std::vector<char> out(sizeof header + result.node_columns.size() * sizeof(std::int32_t));
  std::memcpy(out.data(), header, sizeof header);
  std::memcpy(out.data() + sizeof header, result.node_columns.data(),
              result.node_columns.size() * sizeof(std::int32_t));
  return out;
}

// The result `encode` wrote, or nothing found when the bytes are missing or
// malformed.
CbcResult decode(const std::optional<std::vector<char>>& bytes) {
  CbcResult result;
  std::int32_t header[3];
  if (!bytes || bytes->size() < sizeof header) return result;
  std::memcpy(header, bytes->data(), sizeof header);
  const std::size_t count = static_cast<std::size_t>(std::max(header[2], 0));
  if (bytes->size() != sizeof header + count * sizeof(std::int32_t)) return result;
  result.found = header[0] != 0;
  result.proven = header[1] != 0;
  result.node_columns.resize(count);
  std::memcpy(result.node_columns.data(), bytes->data() + sizeof header,
              count * sizeof(std::int32_t));
  return result;
}

}  // namespace

CbcResult run_cbc(const Program& program, const std::vector<int>& start, double seconds) {
  std::vector<CoinBigIndex> column_start{0};
  std::vector<int> rows;
  std::vector<double> values;
  for (const auto& column : program.columns) {
    for (const auto& [row, value] : column) {
      rows.push_back(row);
      values.push_back(value);
    }
    column_start.push_back(static_cast<CoinBigIndex>(rows.size()));
  }
  std::unique_ptr<Cbc_Model, CbcDeleter> model(Cbc_newModel());
  Cbc_Model* m = model.get();
  Cbc_loadProblem(m, static_cast<int>(program.columns.size()),
                  static_cast<int>(program.row_lower.size()), column_start.data(), rows.data(),
                  values.data(), program.col_lower.data(), program.col_upper.data(),
                  program.objective.data(), program.row_lower.data(), program.row_upper.data());
  for (std::size_t j = 0; j < program.integer.size(); ++j) {
    if (program.integer[j]) Cbc_setInteger(m, static_cast<int>(j));
  }
  Cbc_setObjSense(m, 1.0);
  Cbc_setLogLevel(m, 0);
  Cbc_setParameter(m, "timeMode", "elapsed");
  Cbc_setMaximumSeconds(m, seconds);
  Cbc_setAllowableFractionGap(m, 0.0);
  // CBC's preprocessing pays off on small programs but costs seconds on
  // large ones; measured on extraction-gym with a 10 s limit (babble proves
  // more instances with it, flexc and herbie many more without).
  if (program.num_node_columns > kPreprocessMaxNodeColumns) {
    Cbc_setParameter(m, "preprocess", "off");
  }
  if (!start.empty()) {
    const std::vector<double> ones(start.size(), 1.0);
    Cbc_setMIPStartI(m, static_cast<int>(start.size()), start.data(), ones.data());
  }
  Cbc_solve(m);
  CbcResult result;
  const double* solution = Cbc_bestSolution(m);
  if (solution == nullptr) return result;
  result.found = true;
  result.proven = Cbc_isProvenOptimal(m) != 0;
  for (std::size_t j = 0; j < program.column_node.size(); ++j) {
    if (program.column_node[j] >= 0 && solution[j] > 0.5) {
      result.node_columns.push_back(static_cast<std::int32_t>(j));
    }
  }
  return result;
}

CbcResult run_cbc_with_deadline(const Program& program, const std::vector<int>& start,
                                double seconds) {
  bool ran_here = false;
  CbcResult here;
  const auto bytes = run_in_child(
      [&] {
        here = run_cbc(program, start, 0.8 * seconds);
        return encode(here);
      },
      seconds, &ran_here);
  return ran_here ? here : decode(bytes);
}

}  // namespace eqsat::egraph::ilp
