// Executor benchmark, eqsat's side: workloads compiled once and run several
// times (best time kept), on inputs written as .npy files so that NumPy and
// numexpr (bench/executor_numpy.py) run on the very same values:
//   chain4_6 chain4_7   an elementwise chain of 4 ops on 10^6 / 10^7 f64
//   chain8_6 chain8_7   an elementwise chain of 8 ops on 10^6 / 10^7 f64
//   matmul              a 1000x1000 f64 matrix product
//   softmax log_softmax along the rows of a 2000x2000 f64 matrix
//   mlp                 a 2-layer MLP's loss and the gradients of both weight
//                       matrices (batch 256, width 512), optimized first
//   recurrence          a 10^5-step scalar recurrence x = tanh(a x + b) as a
//                       scan, also as a C++ hand loop (`recurrence_cpp`)
//   exp log sin tanh    one function alone on 10^7 f64
//   chain8_6_opt log_sigmoid logsumexp softmax_naive
//                       graphs as a user writes them, optimized first (as
//                       `eqsat run` does): the 8-op chain (log(e + 1)
//                       becomes logaddexp), log(sigmoid x) on 10^6 f64,
//                       log(sum(exp m)) and exp m / sum(exp m) by rows of
//                       the 2000x2000 matrix (logsumexp, softmax)
// Prints one `NAME<TAB>SECONDS` line per measurement. Run through
// bench/run_executor.sh, which writes the table of bench/README.md.
//
//   bench_executor_kernels --data DIR [--reps N]
#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/npy.hpp"
#include "rules/pipeline/optimize.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>

using namespace eqsat;

namespace {

// exp(sin(x) * x) + 1: 4 ops.
constexpr const char* kChain4 = "(output (add (exp (mul (sin x) x)) 1.0))";
// tanh(log(exp(sin(x) * x) + 1)) * cos(x): 8 ops.
constexpr const char* kChain8 =
    "(output (mul (tanh (log (add (exp (mul (sin x) x)) 1.0))) (cos x)))";
constexpr const char* kLogSigmoid = "(output (log (sigmoid x)))";
constexpr const char* kLogSumExp = R"(
(input m (f64 2000 2000))
(output (log (sum (exp m) :axis 1)))
)";
constexpr const char* kSoftmaxNaive = R"(
(input m (f64 2000 2000))
(output (div (exp m) (sum (exp m) :axis 1 :keepdims true)))
)";
constexpr const char* kMatmul = R"(
(input a (f64 1000 1000))
(input b (f64 1000 1000))
(output (dot a b))
)";
constexpr const char* kSoftmax = R"(
(input m (f64 2000 2000))
(output (softmax m :axis 1))
)";
constexpr const char* kLogSoftmax = R"(
(input m (f64 2000 2000))
(output (log_softmax m :axis 1))
)";
constexpr const char* kMlp = R"(
(input x (f64 256 512))
(input y (f64 256 512))
(input w1 (f64 512 512))
(input b1 (f64 512))
(input w2 (f64 512 512))
(input b2 (f64 512))
(let h (maximum (add (dot x w1) b1) 0.0))
(let out (add (dot h w2) b2))
(let loss (mean (square (sub out y))))
(output loss loss)
(output dw1 (grad loss w1))
(output dw2 (grad loss w2))
)";
constexpr const char* kRecurrence = R"(
(input x0 f64)
(input a f64)
(input b f64)
(let s (scan :n-steps 100000 :sit-sot (x0) :non-sequences (a b)
             (fn (x a_ b_) (tanh (add (mul x a_) b_)))))
(output (index (get 0 s) -1))
)";

ops::Array uniform(ops::Dims shape, double lo, double hi, std::mt19937_64& rng) {
  ops::Array a(ops::DType::F64, std::move(shape));
  std::uniform_real_distribution<double> u(lo, hi);
  for (double& v : a.span<double>()) v = u(rng);
  return a;
}

// Best wall time of `reps` runs of f, after one warm-up run.
double best_seconds(int reps, const std::function<void()>& f) {
  f();
  double best = INFINITY;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// Times `text` (optimized first when `optimize`) on the named inputs and
// writes each output to DIR/NAME.K.eqsat.npy.
void measure(const std::string& name, const std::string& text,
             const std::vector<std::string>& files, const std::string& dir, int reps,
             bool optimize = false) {
  ops::Graph g = ops::parse_graph(text, name + ".eg", dir);
  if (optimize) g = rules::optimize(g, rules::load_default_rules());
  backend::Program p = backend::compile(g);
  std::vector<ops::Array> inputs;
  for (const auto& f : files) inputs.push_back(ops::read_npy(dir + "/" + f + ".npy"));
  std::vector<ops::Array> result;
  const double s = best_seconds(reps, [&] { result = p.run(inputs); });
  for (std::size_t k = 0; k < result.size(); ++k)
    ops::write_npy(fmt::format("{}/{}.{}.eqsat.npy", dir, name, k), result[k]);
  std::cout << fmt::format("{}\t{:.6g}\n", name, s) << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--data") == 0) dir = argv[i + 1];
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
  }
  if (dir.empty()) {
    std::cerr << "usage: bench_executor_kernels --data DIR [--reps N]\n";
    return 2;
  }
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(42);
  ops::write_npy(dir + "/x6.npy", uniform({1000000}, -1, 1, rng));
  ops::write_npy(dir + "/x7.npy", uniform({10000000}, -1, 1, rng));
  ops::write_npy(dir + "/a.npy", uniform({1000, 1000}, -1, 1, rng));
  ops::write_npy(dir + "/b.npy", uniform({1000, 1000}, -1, 1, rng));
  ops::write_npy(dir + "/m.npy", uniform({2000, 2000}, -10, 10, rng));
  ops::write_npy(dir + "/mx.npy", uniform({256, 512}, -1, 1, rng));
  ops::write_npy(dir + "/my.npy", uniform({256, 512}, -1, 1, rng));
  ops::write_npy(dir + "/w1.npy", uniform({512, 512}, -0.05, 0.05, rng));
  ops::write_npy(dir + "/b1.npy", uniform({512}, -0.1, 0.1, rng));
  ops::write_npy(dir + "/w2.npy", uniform({512, 512}, -0.05, 0.05, rng));
  ops::write_npy(dir + "/b2.npy", uniform({512}, -0.1, 0.1, rng));
  ops::write_npy(dir + "/x0.npy", ops::Array::scalar(ops::DType::F64, 0.3));
  ops::write_npy(dir + "/ra.npy", ops::Array::scalar(ops::DType::F64, 0.9));
  ops::write_npy(dir + "/rb.npy", ops::Array::scalar(ops::DType::F64, 0.1));

  for (const char* size : {"6", "7"}) {
    const std::string n = size[0] == '6' ? "1000000" : "10000000";
    const std::string input = fmt::format("(input x (f64 {}))\n", n);
    measure(fmt::format("chain4_{}", size), input + kChain4, {fmt::format("x{}", size)}, dir, reps);
    measure(fmt::format("chain8_{}", size), input + kChain8, {fmt::format("x{}", size)}, dir, reps);
  }
  const std::string x6 = "(input x (f64 1000000))\n";
  measure("chain8_6_opt", x6 + kChain8, {"x6"}, dir, reps, true);
  measure("log_sigmoid", x6 + kLogSigmoid, {"x6"}, dir, reps, true);
  measure("logsumexp", kLogSumExp, {"m"}, dir, reps, true);
  measure("softmax_naive", kSoftmaxNaive, {"m"}, dir, reps, true);
  measure("matmul", kMatmul, {"a", "b"}, dir, reps);
  measure("softmax", kSoftmax, {"m"}, dir, reps);
  measure("log_softmax", kLogSoftmax, {"m"}, dir, reps);
  measure("mlp", kMlp, {"mx", "my", "w1", "b1", "w2", "b2"}, dir, reps, true);
  measure("recurrence", kRecurrence, {"x0", "ra", "rb"}, dir, reps);
  for (const char* f : {"exp", "log", "sin", "tanh"}) {
    // log reads |x| + 0.5 in both implementations; the add is fused into its pass.
    const std::string arg = std::string(f) == "log" ? "(add (abs x) 0.5)" : "x";
    measure(f, fmt::format("(input x (f64 10000000))\n(output ({} {}))", f, arg), {"x7"}, dir,
            reps);
  }

  // The same recurrence as a C++ hand loop: the floor for any executor.
  volatile double sink = 0;
  const double s = best_seconds(reps, [&] {
    double x = 0.3;
    const double a = 0.9, b = 0.1;
    for (int t = 0; t < 100000; ++t) x = std::tanh(x * a + b);
    sink = x;
  });
  (void)sink;
  std::cout << fmt::format("recurrence_cpp\t{:.6g}\n", s);
}
