// The recurrent layers (onnx/ops_recurrent.cpp): an LSTM with biases,
// peepholes, initial states and both directions runs ONNX's equations
// (a plain loop in double here), and reads all four gates out of one
// product per side.
#include "../tools/run_eqsat.hpp"
#include "model_builder.hpp"

#include "backend/evaluate_closed.hpp"
#include "backend/program.hpp"
#include "onnx/import.hpp"
#include "ops/post_order.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using eqsat::testing::ModelBuilder;
using eqsat::testing::Scratch;
namespace eo = eqsat::onnx;
namespace ops = eqsat::ops;

namespace {

constexpr std::int64_t kSeq = 5, kBatch = 3, kIn = 4, kHidden = 6, kDirs = 2;

ops::Array random_f32(const ops::Dims& dims, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  ops::Array a(ops::DType::F32, dims);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data<float>()[i] = static_cast<float>(u(rng));
  return a;
}

double sigmoid(double v) {
  return 1 / (1 + std::exp(-v));
}

// ONNX's LSTM (gates i o f c, peepholes i o f) in double: Y (seq, dirs,
// batch, hidden), Y_h and Y_c (dirs, batch, hidden), flattened.
struct Reference {
  std::vector<double> y, yh, yc;
};
Reference lstm(const ops::Array& x, const ops::Array& w, const ops::Array& r, const ops::Array& b,
               const ops::Array& h0, const ops::Array& c0, const ops::Array& p) {
  const std::int64_t H = kHidden;
  Reference out;
  out.y.assign(kSeq * kDirs * kBatch * H, 0);
  out.yh.assign(kDirs * kBatch * H, 0);
  out.yc.assign(kDirs * kBatch * H, 0);
  for (std::int64_t d = 0; d < kDirs; ++d) {
    std::vector<double> h(kBatch * H), c(kBatch * H);
    for (std::int64_t i = 0; i < kBatch * H; ++i) {
      h[i] = h0.element(d * kBatch * H + i);
      c[i] = c0.element(d * kBatch * H + i);
    }
    for (std::int64_t s = 0; s < kSeq; ++s) {
      const std::int64_t t = d == 0 ? s : kSeq - 1 - s;
      std::vector<double> h2(kBatch * H), c2(kBatch * H);
      for (std::int64_t n = 0; n < kBatch; ++n) {
        for (std::int64_t j = 0; j < H; ++j) {
          // pre-activation of gate g (rows g*H + j of W, R and the biases)
          auto pre = [&](std::int64_t g) {
            const std::int64_t row = g * H + j;
            double v = b.element(d * 8 * H + row) + b.element(d * 8 * H + 4 * H + row);
            for (std::int64_t k = 0; k < kIn; ++k)
              v += x.element((t * kBatch + n) * kIn + k) * w.element((d * 4 * H + row) * kIn + k);
            for (std::int64_t k = 0; k < H; ++k)
              v += h[n * H + k] * r.element((d * 4 * H + row) * H + k);
            return v;
          };
          auto peep = [&](std::int64_t g) { return p.element(d * 3 * H + g * H + j); };
          const double cp = c[n * H + j];
          const double i = sigmoid(pre(0) + peep(0) * cp);
          const double f = sigmoid(pre(2) + peep(2) * cp);
          const double cn = f * cp + i * std::tanh(pre(3));
          const double o = sigmoid(pre(1) + peep(1) * cn);
          c2[n * H + j] = cn;
          h2[n * H + j] = o * std::tanh(cn);
        }
      }
      h = h2;
      c = c2;
      for (std::int64_t i = 0; i < kBatch * H; ++i) out.y[(t * kDirs + d) * kBatch * H + i] = h[i];
    }
    for (std::int64_t i = 0; i < kBatch * H; ++i) {
      out.yh[d * kBatch * H + i] = h[i];
      out.yc[d * kBatch * H + i] = c[i];
    }
  }
  return out;
}

}  // namespace

TEST_CASE(
    "LSTM: both directions with biases and peepholes run ONNX's equations, one product a side") {
  Scratch s;
  std::mt19937_64 rng(28);
  const ops::Array x = random_f32({kSeq, kBatch, kIn}, rng);
  const ops::Array w = random_f32({kDirs, 4 * kHidden, kIn}, rng);
  const ops::Array r = random_f32({kDirs, 4 * kHidden, kHidden}, rng);
  const ops::Array b = random_f32({kDirs, 8 * kHidden}, rng);
  const ops::Array h0 = random_f32({kDirs, kBatch, kHidden}, rng);
  const ops::Array c0 = random_f32({kDirs, kBatch, kHidden}, rng);
  const ops::Array p = random_f32({kDirs, 3 * kHidden}, rng);
  ModelBuilder m;
  m.input("x", {kSeq, kBatch, kIn})
      .initializer("w", w)
      .initializer("r", r)
      .initializer("b", b)
      .initializer("h0", h0)
      .initializer("c0", c0)
      .initializer("p", p)
      .output("y")
      .output("yh")
      .output("yc");
  auto& node = m.node("LSTM", {"x", "w", "r", "b", "", "h0", "c0", "p"}, {"y", "yh", "yc"}, "lstm");
  ModelBuilder::attr(node, "hidden_size", kHidden);
  auto* dir = node.add_attribute();
  dir->set_name("direction");
  dir->set_type(eo::pb::AttributeProto::STRING);
  dir->set_s("bidirectional");
  eo::ImportOptions options;
  options.evaluate = eqsat::backend::evaluate_closed;
  const auto imported = eo::import_model(m.write(s.path("lstm.onnx")), options);

  // One x·Wᵀ and one h·Rᵀ of 4H columns, not one per gate (both
  // directions run the same body, with their own weights).
  std::vector<ops::TermRef> roots;
  for (const auto& o : imported.graph.outputs) roots.push_back(o.term);
  int products = 0;
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](ops::TermRef t) {
    if (t->kind() != ops::OpKind::Dot) return;
    ++products;
    CHECK(t->tensor_type().dims.back() == 4 * kHidden);
  });
  CHECK(products == 2);

  const std::vector<ops::Array> got = eqsat::backend::compile(imported.graph).run({x});
  const Reference want = lstm(x, w, r, b, h0, c0, p);
  REQUIRE(got.size() == 3);
  CHECK(got[0].shape() == ops::Dims{kSeq, kDirs, kBatch, kHidden});
  CHECK(got[1].shape() == ops::Dims{kDirs, kBatch, kHidden});
  CHECK(got[2].shape() == ops::Dims{kDirs, kBatch, kHidden});
  const std::vector<const std::vector<double>*> refs = {&want.y, &want.yh, &want.yc};
  for (std::size_t o = 0; o < 3; ++o) {
    INFO("output " << o);
    REQUIRE(got[o].size() == static_cast<std::int64_t>(refs[o]->size()));
    for (std::int64_t i = 0; i < got[o].size(); ++i)
      CHECK(got[o].element(i) == Approx((*refs[o])[i]).margin(1e-5));
  }
}
