// Gradient benchmark, eqsat's side: graphs with `grad` optimized by the
// default rules (gradients expanded and optimized), compiled once and run
// several times (best time kept), on inputs written as .npy files so that
// NumPy's hand-written backward passes (bench/gradients_numpy.py) run on
// the very same values:
//   mlp         loss and both weight gradients of a 2-layer tanh MLP,
//               batch 256, width 512, f64
//   rnn         loss and the gradient wrt W of a 10^4-step recurrence
//               h = tanh(W h + x_t), state width 64, f64
//   rnn_ckpt    the same gradient checkpointed every 100 steps
// Prints one `NAME<TAB>SECONDS<TAB>OPTIMIZE_SECONDS` line per workload and
// writes each output as DIR/NAME.OUTPUT.eqsat.npy. With `--memory K` it
// instead runs once the gradient of a 10^5-step loop over a state of 1000
// f64 (h = tanh(a h + b), only the last state read) checkpointed every K
// steps (0: the whole tape) and prints `memory_K<TAB>SECONDS<TAB>PEAK_MB`,
// the process's peak resident memory. Run through bench/run_gradients.sh,
// which writes the table of bench/README.md.
//
//   bench_gradients --data DIR [--reps N] [--memory K]
#include "rules/autodiff/gradient.hpp"
#include "rules/pipeline/optimize.hpp"

#include "backend/program.hpp"
#include "ops/graph_parser.hpp"
#include "ops/npy.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>

using namespace eqsat;

namespace {

constexpr const char* kMlp = R"(
(input x (f64 256 512))
(input y (f64 256 512))
(input w1 (f64 512 512))
(input w2 (f64 512 512))
(let h (tanh (dot x w1)))
(let loss (mean (square (sub (dot h w2) y))))
(output loss loss)
(output g1 (grad loss w1))
(output g2 (grad loss w2))
)";

constexpr const char* kRnn = R"(
(input xs (f64 10000 64))
(input h0 (f64 64))
(input w (f64 64 64))
(let s (scan :sequences (xs) :sit-sot (h0) :non-sequences (w)
             (fn (x h w_) (tanh (add (dot w_ h) x)))))
(output loss (sum (get 0 s)))
)";

constexpr const char* kLong = R"(
(input h0 (f64 1000))
(input a (f64 1000))
(input b (f64 1000))
(let s (scan :n-steps 100000 :sit-sot (h0) :non-sequences (a b) :keep (1)
             (fn (h a_ b_) (tanh (add (mul h a_) b_)))))
(output loss (sum (index (get 0 s) -1)))
)";

// The loss graph `text` with its gradient with respect to input `wrt` as a
// second output, checkpointed every `checkpoint` steps (0: whole tape).
ops::Graph with_gradient(const char* text, const std::string& name, std::size_t wrt,
                         std::int64_t checkpoint) {
  ops::Graph g = ops::parse_graph(text, name + ".eg", ".");
  g.outputs.push_back(
      {"g" + g.inputs[wrt]->attrs().get<std::string>(ops::AttrKey::Name),
       rules::gradient(g.outputs[0].term, g.inputs[wrt], {.checkpoint = checkpoint})});
  return g;
}

// The peak resident memory of this process so far, in MB.
double peak_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

ops::Array uniform(ops::Dims shape, double lo, double hi, std::mt19937_64& rng) {
  ops::Array a(ops::DType::F64, std::move(shape));
  std::uniform_real_distribution<double> u(lo, hi);
  for (double& v : a.span<double>()) v = u(rng);
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Best wall time of `reps` runs of f, after one warm-up run.
double best_seconds(int reps, const std::function<void()>& f) {
  f();
  double best = INFINITY;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

void measure(const std::string& name, const ops::Graph& g, const std::vector<std::string>& files,
             const std::string& dir, int reps) {
  const auto t0 = std::chrono::steady_clock::now();
  const ops::Graph opt = rules::optimize(g, rules::load_default_rules());
  const double optimize_seconds = seconds_since(t0);
  backend::Program p = backend::compile(opt);
  std::vector<ops::Array> inputs;
  for (const auto& f : files) inputs.push_back(ops::read_npy(dir + "/" + f + ".npy"));
  std::vector<ops::Array> results;
  const double s = best_seconds(reps, [&] { results = p.run(inputs); });
  for (std::size_t i = 0; i < results.size(); ++i)
    ops::write_npy(dir + "/" + name + "." + opt.outputs[i].name + ".eqsat.npy", results[i]);
  std::cout << fmt::format("{}\t{:.6g}\t{:.3g}\n", name, s, optimize_seconds) << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int reps = 5;
  std::int64_t memory = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--data") == 0) dir = argv[i + 1];
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--memory") == 0) memory = std::atoll(argv[i + 1]);
  }
  if (memory >= 0) {
    const ops::Graph g =
        rules::optimize(with_gradient(kLong, "long", 1, memory), rules::load_default_rules());
    backend::Program p = backend::compile(g);
    std::mt19937_64 rng(7);
    const std::vector<ops::Array> inputs{uniform({1000}, -1, 1, rng), uniform({1000}, 0, 1, rng),
                                         uniform({1000}, -0.5, 0.5, rng)};
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = p.run(inputs);
    std::cout << fmt::format("memory_{}\t{:.3g}\t{:.0f}\t{:.6g}\n", memory, seconds_since(t0),
                             peak_mb(), out[1].element(0));
    return 0;
  }
  if (dir.empty()) {
    std::cerr << "usage: bench_gradients --data DIR [--reps N] [--memory K]\n";
    return 2;
  }
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(42);
  ops::write_npy(dir + "/x.npy", uniform({256, 512}, -1, 1, rng));
  ops::write_npy(dir + "/y.npy", uniform({256, 512}, -1, 1, rng));
  ops::write_npy(dir + "/w1.npy", uniform({512, 512}, -0.05, 0.05, rng));
  ops::write_npy(dir + "/w2.npy", uniform({512, 512}, -0.05, 0.05, rng));
  ops::write_npy(dir + "/xs.npy", uniform({10000, 64}, -1, 1, rng));
  ops::write_npy(dir + "/h0.npy", uniform({64}, -1, 1, rng));
  ops::write_npy(dir + "/w.npy", uniform({64, 64}, -0.15, 0.15, rng));

  measure("mlp", ops::parse_graph(kMlp, "mlp.eg", dir), {"x", "y", "w1", "w2"}, dir, reps);
  measure("rnn", with_gradient(kRnn, "rnn", 2, 0), {"xs", "h0", "w"}, dir, reps);
  measure("rnn_ckpt", with_gradient(kRnn, "rnn", 2, 100), {"xs", "h0", "w"}, dir, reps);
}
