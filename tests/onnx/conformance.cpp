// ONNX's backend node tests (Debian's libonnx-testdata) run in one process:
// for each test folder, the model is imported, run as written (`--no-opt`)
// and optimized on test_data_set_0's inputs, and both results are compared
// with the expected outputs at ONNX's tolerance (rtol 1e-3, atol 1e-7).
//
//   eqsat_onnx_conformance NODE_DIR [--report FILE.tsv] [--min-pass N] [--only NAME]
//
// Each test is PASS, REFUSED (the importer's message, naming the op or the
// dtype), WRONG (a value differs), or ERROR (anything else: a run-time
// error, an unexpected exception). Prints one line per test and a summary;
// --report writes `NAME<TAB>STATUS<TAB>OPS<TAB>MESSAGE` lines (OPS: the
// model's op types, for docs/onnx.md's table, tests/onnx/coverage_table.py).
// Exit status 1 when a test is WRONG or ERROR, or fewer than N pass.
#include "backend/evaluate_closed.hpp"
#include "backend/program.hpp"
#include "onnx/import.hpp"
#include "onnx/import_error.hpp"
#include "onnx/proto.hpp"
#include "onnx/tensor_proto.hpp"
#include "rules/pipeline/optimize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace eqsat;
namespace eo = eqsat::onnx;

namespace {

struct Outcome {
  std::string status;  // PASS REFUSED WRONG ERROR
  std::string message;
};

// The op types of a model's main graph, sorted, comma-separated.
std::string op_types(const fs::path& model) {
  std::ifstream in(model, std::ios::binary);
  eo::pb::ModelProto m;
  if (!m.ParseFromIstream(&in)) return "";
  std::set<std::string> types;
  for (const auto& n : m.graph().node()) types.insert(n.op_type());
  std::string s;
  for (const auto& t : types) s += (s.empty() ? "" : ",") + t;
  return s;
}

// Empty when `got` matches `want` at ONNX's tolerance, else why not.
std::string compare(const ops::Array& got, const ops::Array& want) {
  if (got.dtype() != want.dtype())
    return fmt::format("dtype {} instead of {}", ops::dtype_name(got.dtype()),
                       ops::dtype_name(want.dtype()));
  if (got.shape() != want.shape())
    return fmt::format("shape {} instead of {}", ops::dims_to_string(got.shape()),
                       ops::dims_to_string(want.shape()));
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const double a = got.element(i), b = want.element(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;
    if (!ops::is_float(got.dtype()) || std::isinf(a) || std::isinf(b) || std::isnan(a) ||
        std::isnan(b) || std::abs(a - b) > 1e-7 + 1e-3 * std::abs(b))
      return fmt::format("element {} is {} instead of {}", i, a, b);
  }
  return "";
}

Outcome run_test(const fs::path& dir, const rules::RuleProgram& rules) {
  ops::Graph graph;
  try {
    eo::ImportOptions options;
    options.evaluate = backend::evaluate_closed;
    graph = eo::import_model((dir / "model.onnx").string(), options).graph;
  } catch (const eo::ImportError& e) {
    return {"REFUSED", e.what()};
  }
  const fs::path data = dir / "test_data_set_0";
  std::vector<ops::Array> inputs, expected;
  try {
    for (std::size_t i = 0; i < graph.inputs.size(); ++i)
      inputs.push_back(eo::read_tensor_file((data / fmt::format("input_{}.pb", i)).string()));
    for (std::size_t i = 0; i < graph.outputs.size(); ++i)
      expected.push_back(eo::read_tensor_file((data / fmt::format("output_{}.pb", i)).string()));
  } catch (const eo::ImportError& e) {
    return {"REFUSED", e.what()};
  }
  for (bool optimized : {false, true}) {
    const char* how = optimized ? "optimized" : "as written";
    try {
      const ops::Graph g = optimized ? rules::optimize(graph, rules) : graph;
      backend::Program program = backend::compile(g);
      const auto outputs = program.run(inputs);
      for (std::size_t i = 0; i < outputs.size(); ++i)
        if (auto why = compare(outputs[i], expected[i]); !why.empty())
          return {"WRONG",
                  fmt::format("{}: output {} ({}): {}", how, i, graph.outputs[i].name, why)};
    } catch (const std::exception& e) {
      return {"ERROR", fmt::format("{}: {}", how, e.what())};
    }
  }
  return {"PASS", ""};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: eqsat_onnx_conformance NODE_DIR [--report FILE.tsv] [--min-pass N] "
                 "[--only NAME]\n";
    return 2;
  }
  const fs::path root = argv[1];
  std::string report_path, only;
  long min_pass = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--report")
      report_path = argv[i + 1];
    else if (flag == "--min-pass")
      min_pass = std::stol(argv[i + 1]);
    else if (flag == "--only")
      only = argv[i + 1];
    else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  std::vector<fs::path> tests;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.onnx") && (only.empty() || e.path().filename() == only))
      tests.push_back(e.path());
  std::ranges::sort(tests);
  const rules::RuleProgram rules = rules::load_default_rules();
  std::map<std::string, int> counts;
  std::ofstream report;
  if (!report_path.empty()) report.open(report_path);
  for (const auto& t : tests) {
    const Outcome o = run_test(t, rules);
    ++counts[o.status];
    const std::string name = t.filename().string();
    std::cout << o.status << " " << name << (o.message.empty() ? "" : ": " + o.message) << "\n"
              << std::flush;
    if (report) {
      std::string msg = o.message;
      std::ranges::replace(msg, '\t', ' ');
      std::ranges::replace(msg, '\n', ' ');
      report << name << "\t" << o.status << "\t" << op_types(t / "model.onnx") << "\t" << msg
             << "\n";
    }
  }
  std::cout << fmt::format("{} tests: {} pass, {} refused, {} wrong, {} errors\n", tests.size(),
                           counts["PASS"], counts["REFUSED"], counts["WRONG"], counts["ERROR"]);
  return counts["WRONG"] + counts["ERROR"] > 0 || counts["PASS"] < min_pass ? 1 : 0;
}
