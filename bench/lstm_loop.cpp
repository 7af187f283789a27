// The LSTM layer of bench/onnx_models.py (200 steps, batch 16, 64 -> 128,
// f32) written as a C++ loop over the executor's own kernels, without the
// executor: the input projection as one oneDNN product over every step
// (its bias first in the result, added by beta 1), then per step the
// recurrent product added into the step's rows (beta 1, as eqsat adds it
// in place), our `sigmoid` on the i, o, f gates, `tanh` on the candidate
// and on the new cell, the cell's products in plain loops. With two
// threads each takes half the batch rows for the whole loop, as eqsat's
// loop by rows does. What eqsat's scan takes beyond this loop is the
// executor's own work between kernels (bench/README.md, "Speed round 14").
//
//   bench_lstm_loop [--reps N]
//
// Prints, per thread count, the best projection, loop and layer times.
#include "backend/onednn.hpp"
#include "backend/vector_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace eqsat::backend;

namespace {

constexpr int kSteps = 200, kBatch = 16, kIn = 64, kHidden = 128, kGates = 4 * kHidden;

// The layer's values: inputs, weights (stored as products read them),
// the projection's rows and the states.
struct Layer {
  std::vector<float> x, w, r, bias, xw, h, c;
  Layer()
      : x(kSteps * kBatch * kIn),
        w(kIn * kGates),
        r(kHidden * kGates),
        bias(kGates),
        xw(kSteps * kBatch * kGates),
        h(kBatch * kHidden),
        c(kBatch * kHidden) {
    auto fill = [](std::vector<float>& v, unsigned seed, float scale) {
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = scale * (static_cast<float>((i * 2654435761u + seed) % 2001) / 1000.0f - 1.0f);
    };
    fill(x, 1, 1.0f);
    fill(w, 2, 0.125f);
    fill(r, 3, 0.09f);
    fill(bias, 4, 0.1f);
  }
};

// Rows [r0, r1) of the projection: the bias, then x w added by beta 1.
void project(Layer& l, int r0, int r1) {
  for (int i = r0; i < r1; ++i)
    std::memcpy(&l.xw[static_cast<std::size_t>(i) * kGates], l.bias.data(), kGates * sizeof(float));
  detail::onednn_sgemm(false, false, r1 - r0, kGates, kIn, &l.x[static_cast<std::size_t>(r0) * kIn],
                       kIn, l.w.data(), kGates, 1.0f, &l.xw[static_cast<std::size_t>(r0) * kGates],
                       kGates);
}

// Every step on batch rows [b0, b1).
void steps(Layer& l, int b0, int b1) {
  const int rows = b1 - b0;
  std::vector<float> t(kHidden);
  float* h = &l.h[b0 * kHidden];
  float* c = &l.c[b0 * kHidden];
  for (int s = 0; s < kSteps; ++s) {
    float* g = &l.xw[(static_cast<std::size_t>(s) * kBatch + b0) * kGates];
    detail::onednn_sgemm(false, false, rows, kGates, kHidden, h, kHidden, l.r.data(), kGates, 1.0f,
                         g, kGates);
    for (int b = 0; b < rows; ++b) {
      float* row = g + b * kGates;  // i, o, f, candidate
      vmath::sigmoid(row, row, 3 * kHidden);
      vmath::tanh(row + 3 * kHidden, row + 3 * kHidden, kHidden);
      float* cb = c + b * kHidden;
      float* hb = h + b * kHidden;
      for (int j = 0; j < kHidden; ++j)
        cb[j] = row[2 * kHidden + j] * cb[j] + row[j] * row[3 * kHidden + j];
      vmath::tanh(cb, t.data(), kHidden);
      for (int j = 0; j < kHidden; ++j) hb[j] = row[kHidden + j] * t[j];
    }
  }
}

// Runs f(part) for part 0 .. threads - 1, each on its own thread.
template <class F>
void on_threads(int threads, const F& f) {
  std::vector<std::thread> others;
  for (int p = 1; p < threads; ++p) others.emplace_back(f, p);
  f(0);
  for (auto& t : others) t.join();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200;
  if (argc != 1 && (argc != 3 || std::strcmp(argv[1], "--reps") != 0 ||
                    (reps = std::atoi(argv[2])) < 1 || std::to_string(reps) != argv[2])) {
    fmt::print(stderr, "usage: bench_lstm_loop [--reps N]   (a positive count, default 200)\n");
    return 2;
  }
  float probe = 0;
  if (!detail::onednn_sgemm(false, false, 1, 1, 1, &probe, 1, &probe, 1, 0.0f, &probe, 1)) {
    fmt::print(stderr, "bench_lstm_loop: oneDNN (libdnnl.so.2) cannot be loaded\n");
    return 1;
  }
  Layer l;
  for (int threads : {1, 2}) {
    double best_projection = 1e30, best_loop = 1e30, best_layer = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
      std::fill(l.h.begin(), l.h.end(), 0.0f);
      std::fill(l.c.begin(), l.c.end(), 0.0f);
      const auto t0 = std::chrono::steady_clock::now();
      on_threads(threads, [&](int p) {
        project(l, kSteps * kBatch * p / threads, kSteps * kBatch * (p + 1) / threads);
      });
      const double projection = seconds_since(t0);
      const auto t1 = std::chrono::steady_clock::now();
      on_threads(threads,
                 [&](int p) { steps(l, kBatch * p / threads, kBatch * (p + 1) / threads); });
      const double loop = seconds_since(t1);
      best_projection = std::min(best_projection, projection);
      best_loop = std::min(best_loop, loop);
      best_layer = std::min(best_layer, projection + loop);
    }
    fmt::print("threads {}: projection {:.3f} ms, loop {:.3f} ms, layer {:.3f} ms (best of {})\n",
               threads, best_projection * 1e3, best_loop * 1e3, best_layer * 1e3, reps);
  }
}
