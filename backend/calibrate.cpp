#include "calibrate.hpp"

#include "program.hpp"

#include "ops/graph_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace eqsat::backend {

namespace {

// Best wall time of a program's run over `reps` runs after a warm-up.
double best_seconds(const std::string& text, std::vector<ops::Array> inputs, int reps) {
  Program p = compile(ops::parse_graph(text, "calibrate.eg", "."));
  p.run(inputs);
  double best = INFINITY;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    p.run(inputs);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

ops::Array ramp(ops::DType dtype, ops::Dims shape) {
  ops::Array a(dtype, std::move(shape));
  ops::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T* p = a.data<T>();
    for (std::int64_t i = 0; i < a.size(); ++i) p[i] = static_cast<T>((i % 97) * 0.01);
  });
  return a;
}

}  // namespace

CostWeights calibrate(const std::function<void(const std::string&)>& progress) {
  using ops::DType;
  CostWeights w;
  auto report = [&](const char* name, double value) {
    if (progress) progress(fmt::format("{} = {:.4g}", name, value));
    return std::max(value, 1e-4);  // weights stay positive
  };
  constexpr int kChain = 64;
  std::string chain = "(input x (i64 1))\n(output ";
  for (int i = 0; i < kChain; ++i) chain += "(add ";
  chain += "x";
  for (int i = 0; i < kChain; ++i) chain += " 1)";
  chain += ")\n";
  w.call_overhead_ns =
      report("call_overhead_ns", 1e9 * best_seconds(chain, {ramp(DType::I64, {1})}, 200) / kChain);

  constexpr std::int64_t kBig = 10'000'000;
  const double neg =
      best_seconds("(input x (f64 10000000))\n(output (neg x))", {ramp(DType::F64, {kBig})}, 5);
  w.ns_per_byte = report("ns_per_byte", 1e9 * neg / (16.0 * kBig));

  constexpr std::int64_t kSmall = 4096;
  const double add = best_seconds("(input x (f64 4096))\n(input y (f64 4096))\n(output (add x y))",
                                  {ramp(DType::F64, {kSmall}), ramp(DType::F64, {kSmall})}, 500);
  w.ns_per_flop = report("ns_per_flop", (1e9 * add - w.call_overhead_ns) / kSmall);
  const double exp =
      best_seconds("(input x (f64 4096))\n(output (exp x))", {ramp(DType::F64, {kSmall})}, 500);
  w.ns_per_transcendental =
      report("ns_per_transcendental", (1e9 * exp - w.call_overhead_ns) / kSmall);
  const double pow =
      best_seconds("(input x (f64 4096))\n(output (pow x 2.5))", {ramp(DType::F64, {kSmall})}, 100);
  w.ns_per_pow = report("ns_per_pow", (1e9 * pow - w.call_overhead_ns) / kSmall);
  ops::Array condition(DType::Bool, {kSmall});
  for (std::int64_t i = 0; i < kSmall; ++i) condition.data<bool>()[i] = i % 3 == 0;
  const double where =
      best_seconds("(input c (bool 4096))\n(input x (f64 4096))\n(output (where c x 0.0))",
                   {condition, ramp(DType::F64, {kSmall})}, 100);
  w.ns_per_select = report("ns_per_select", (1e9 * where - w.call_overhead_ns) / kSmall);

  constexpr std::int64_t kN = 512;
  const double dot =
      best_seconds("(input a (f64 512 512))\n(input b (f64 512 512))\n(output (dot a b))",
                   {ramp(DType::F64, {kN, kN}), ramp(DType::F64, {kN, kN})}, 5);
  w.ns_per_gemm_flop = report("ns_per_gemm_flop", 1e9 * dot / (2.0 * kN * kN * kN));

  constexpr int kSteps = 10000;
  const double scan = best_seconds(
      "(input x0 (f64 2))\n"
      "(output (get 0 (scan :n-steps 10000 :sit-sot (x0) (fn (x) (add x 1.0)))))\n",
      {ramp(DType::F64, {2})}, 5);
  w.scan_step_overhead_ns =
      report("scan_step_overhead_ns", 1e9 * scan / kSteps - w.call_overhead_ns);
  return w;
}

}  // namespace eqsat::backend
