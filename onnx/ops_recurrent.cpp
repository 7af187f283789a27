// ONNX's recurrent layers RNN, GRU and LSTM as our loops: one `scan` per
// direction over the sequence, the weights of each gate passed in as
// non-sequences, with ONNX's default activations (Tanh; Sigmoid and Tanh;
// Sigmoid, Tanh and Tanh). Other activations, clip, sequence_lens and
// input_forget are refused.
#include "build.hpp"
#include "loop_builder.hpp"
#include "op_table.hpp"

#include <fmt/format.h>

namespace eqsat::onnx {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;
using Out = std::vector<TermRef>;

enum class Cell { Rnn, Gru, Lstm };

int gates(Cell cell) {
  return cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
}

// Rows [g·H, (g+1)·H) of `w` (direction d taken already), transposed when `t`.
TermRef gate_rows(const NodeContext& c, TermRef w, int g, std::int64_t h, bool t) {
  TermRef r = slice(c, w, 0, g * h, (g + 1) * h);
  return t ? c.make(OpKind::Transpose, {r}) : r;
}

struct Direction {
  TermRef y;               // (seq, batch, hidden)
  TermRef h_last, c_last;  // (batch, hidden)
};

Direction run_direction(const NodeContext& c, Cell cell, TermRef x, int d, bool reverse,
                        std::int64_t hidden, TermRef h0, TermRef c0) {
  const int ng = gates(cell);
  TermRef dd = NodeContext::scalar(DType::I64, d);
  TermRef w = c.make(OpKind::Index, {c.input(1), dd});
  TermRef r = c.make(OpKind::Index, {c.input(2), dd});
  TermRef b = c.has_input(3) ? c.make(OpKind::Index, {c.input(3), dd}) : nullptr;
  TermRef p =
      cell == Cell::Lstm && c.has_input(7) ? c.make(OpKind::Index, {c.input(7), dd}) : nullptr;
  LoopParts parts;
  parts.sequences.push_back(reverse ? c.make(OpKind::Flip, {{AttrKey::Axis, std::int64_t{0}}}, {x})
                                    : x);
  parts.sitsots.push_back(h0);
  if (cell == Cell::Lstm) parts.sitsots.push_back(c0);
  // LSTM: Wᵀ and Rᵀ of all four gates, then the two biases (one product
  // per side gives every gate, sliced after: the optimizer moves x·Wᵀ out
  // of the loop as one product, and each step makes one h·Rᵀ of 4H columns
  // instead of four of H). RNN and GRU: per gate Wᵀ, Rᵀ, then the biases.
  const int blocks = cell == Cell::Lstm ? 1 : ng;
  const std::int64_t block_rows = cell == Cell::Lstm ? ng * hidden : hidden;
  for (int g = 0; g < blocks; ++g) {
    parts.nonsequences.push_back(gate_rows(c, w, g, block_rows, true));
    parts.nonsequences.push_back(gate_rows(c, r, g, block_rows, true));
    if (b) {
      parts.nonsequences.push_back(gate_rows(c, b, g, block_rows, false));
      parts.nonsequences.push_back(gate_rows(c, b, blocks + g, block_rows, false));
    }
  }
  if (p)
    for (int g = 0; g < 3; ++g) parts.nonsequences.push_back(gate_rows(c, p, g, hidden, false));
  const std::size_t per_gate = b ? 4 : 2;
  const std::size_t first = parts.sitsots.size() + 1;
  auto param = [&](std::size_t slot) { return loop_param(parts, slot); };
  TermRef xt = param(0), h = param(1), cs = cell == Cell::Lstm ? param(2) : nullptr;
  auto wt = [&](int g) { return param(first + per_gate * g); };
  auto rt = [&](int g) { return param(first + per_gate * g + 1); };
  auto add = [&](TermRef a, TermRef e) { return c.make(OpKind::Add, {a, e}); };
  auto mul = [&](TermRef a, TermRef e) { return c.make(OpKind::Mul, {a, e}); };
  auto xw = [&](int g) {
    TermRef v = c.make(OpKind::Dot, {xt, wt(g)});
    return b ? add(v, param(first + per_gate * g + 2)) : v;
  };
  auto hr = [&](TermRef hh, int g) {
    TermRef v = c.make(OpKind::Dot, {hh, rt(g)});
    return b ? add(v, param(first + per_gate * g + 3)) : v;
  };
  auto sig = [&](TermRef v) { return c.make(OpKind::Sigmoid, {v}); };
  auto tanh = [&](TermRef v) { return c.make(OpKind::Tanh, {v}); };
  if (cell == Cell::Rnn) {
    parts.body_outputs = {tanh(add(xw(0), hr(h, 0)))};
  } else if (cell == Cell::Gru) {
    TermRef z = sig(add(xw(0), hr(h, 0)));
    TermRef rr = sig(add(xw(1), hr(h, 1)));
    TermRef cand = c.attr_int("linear_before_reset", 0) != 0 ? tanh(add(xw(2), mul(rr, hr(h, 2))))
                                                             : tanh(add(xw(2), hr(mul(rr, h), 2)));
    TermRef one = NodeContext::scalar_like(z, 1);
    parts.body_outputs = {add(mul(c.make(OpKind::Sub, {one, z}), cand), mul(z, h))};
  } else {
    const std::size_t pslot = first + per_gate;
    auto peep = [&](int g, TermRef state) { return p ? mul(param(pslot + g), state) : nullptr; };
    auto with = [&](TermRef v, TermRef extra) { return extra ? add(v, extra) : v; };
    // Gate g's columns of (x·Wᵀ + Wb) + (h·Rᵀ + Rb): per element the sums
    // of the per-gate form, in its order.
    TermRef all = add(xw(0), hr(h, 0));
    auto gate = [&](int g) { return slice(c, all, 1, g * hidden, (g + 1) * hidden); };
    // ONNX's gate order: i, o, f, c; peepholes i, o, f
    TermRef i = sig(with(gate(0), peep(0, cs)));
    TermRef f = sig(with(gate(2), peep(2, cs)));
    TermRef cand = tanh(gate(3));
    TermRef cnew = add(mul(f, cs), mul(i, cand));
    TermRef o = sig(with(gate(1), peep(1, cnew)));
    parts.body_outputs = {mul(o, tanh(cnew)), cnew};
  }
  TermRef loop = make_loop(c, parts);
  Direction out;
  out.y = c.make(OpKind::Get, {{AttrKey::Index, std::int64_t{0}}}, {loop});
  out.h_last = final_state(c, out.y, h0);
  if (cell == Cell::Lstm)
    out.c_last =
        final_state(c, c.make(OpKind::Get, {{AttrKey::Index, std::int64_t{1}}}, {loop}), c0);
  if (reverse) out.y = c.make(OpKind::Flip, {{AttrKey::Axis, std::int64_t{0}}}, {out.y});
  return out;
}

template <Cell cell>
Out recurrent(NodeContext& c) {
  c.only_attrs({"activations", "activation_alpha", "activation_beta", "clip", "direction",
                "hidden_size", "layout", "linear_before_reset", "input_forget"});
  const std::vector<std::string> defaults =
      cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
      : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  if (c.opset() < 7)
    c.refuse(fmt::format("opset {} (eqsat reads recurrent layers from opset 7)", c.opset()));
  const std::string direction = c.attr_string("direction", "forward");
  const int dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    c.refuse(fmt::format("direction '{}'", direction));
  const auto acts = c.attr_strings("activations");
  for (std::size_t i = 0; i < acts.size(); ++i)
    if (acts[i] != defaults[i % defaults.size()])
      c.refuse(fmt::format("the activation {}", acts[i]));
  if (c.has_attr("clip")) c.refuse("clip");
  if (c.attr_int("input_forget", 0) != 0) c.refuse("input_forget");
  if (c.has_input(4)) {
    const ops::Array* lens = c.constant(4);
    const auto seq = c.type(0).dims.at(c.attr_int("layout", 0) ? 1 : 0);
    bool full = lens != nullptr && seq != ops::kUnknownDim;
    for (std::int64_t i = 0; full && i < lens->size(); ++i)
      full = lens->element(i) == static_cast<double>(seq);
    if (!full) c.refuse("sequence_lens shorter than the sequence");
  }
  const bool batch_first = c.attr_int("layout", 0) != 0;
  TermRef x = c.input(0);
  if (x->tensor_type().rank() != 3) c.refuse("an input of rank other than 3");
  if (batch_first) x = c.make(OpKind::Transpose, {{AttrKey::Perm, ops::IntList{1, 0, 2}}}, {x});
  const std::int64_t hidden = c.attr_int("hidden_size", c.type(2).dims.at(2));
  if (hidden <= 0) c.refuse("hidden_size is missing");
  const std::int64_t batch = x->tensor_type().dims[1];
  const DType dt = x->tensor_type().dtype;
  auto initial = [&](std::size_t input, int d) -> TermRef {
    if (c.has_input(input)) {
      TermRef s = c.input(input);
      if (batch_first) s = c.make(OpKind::Transpose, {{AttrKey::Perm, ops::IntList{1, 0, 2}}}, {s});
      return c.make(OpKind::Index, {s, NodeContext::scalar(DType::I64, d)});
    }
    if (batch == ops::kUnknownDim) c.refuse("a batch size not known when the model is read");
    return ops::Term::constant(ops::Array(dt, {batch, hidden}));
  };
  std::vector<Direction> runs;
  for (int d = 0; d < dirs; ++d)
    runs.push_back(run_direction(c, cell, x, d, direction == "reverse" || d == 1, hidden,
                                 initial(5, d), cell == Cell::Lstm ? initial(6, d) : nullptr));
  auto stack = [&](auto pick, int axis) {
    std::vector<TermRef> parts;
    for (const auto& r : runs) parts.push_back(pick(r));
    return c.make(OpKind::Stack, {{AttrKey::Axis, std::int64_t{axis}}}, parts);
  };
  TermRef y = stack([](const Direction& r) { return r.y; }, 1);  // (seq, dirs, batch, hidden)
  TermRef yh = stack([](const Direction& r) { return r.h_last; }, 0);
  TermRef yc = cell == Cell::Lstm ? stack([](const Direction& r) { return r.c_last; }, 0) : nullptr;
  if (batch_first) {
    y = c.make(OpKind::Transpose, {{AttrKey::Perm, ops::IntList{2, 0, 1, 3}}}, {y});
    yh = c.make(OpKind::Transpose, {{AttrKey::Perm, ops::IntList{1, 0, 2}}}, {yh});
    if (yc) yc = c.make(OpKind::Transpose, {{AttrKey::Perm, ops::IntList{1, 0, 2}}}, {yc});
  }
  if (cell == Cell::Lstm) return {y, yh, yc};
  return {y, yh};
}

const OnnxOp kOps[] = {
    {"GRU", recurrent<Cell::Gru>},
    {"LSTM", recurrent<Cell::Lstm>},
    {"RNN", recurrent<Cell::Rnn>},
};

}  // namespace

std::span<const OnnxOp> recurrent_ops() {
  return kOps;
}

}  // namespace eqsat::onnx
