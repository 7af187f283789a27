// The graph printer: parse → print → parse gives the same graph (same terms
// by identity), for every op of the catalogue (driven by the op table, so a
// new op without a sample fails here), every scan slot kind, the examples,
// graphs built in C++, and random well-typed graphs over many seeds.
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "ops/type_error.hpp"

#include "op_samples.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

using namespace eqsat::ops;
using eqsat::ops::test::kInputs;
using eqsat::ops::test::op_sample;

namespace {

const std::string kData = std::string(EQSAT_TESTS_DIR) + "/data";

// Prints `g` (with and without types), parses the text back and checks the
// result is the same graph; printing again gives the same text.
void check_round_trip(const Graph& g) {
  for (bool types : {false, true}) {
    const std::string text = print_graph(g, {.types = types});
    INFO("printed:\n" << text);
    Graph back;
    try {
      back = parse_graph(text, "printed.eg", kData);
    } catch (const DiagnosticError& e) {
      FAIL("the printed graph does not parse: " << e.what());
    }
    CHECK(back == g);
    CHECK(print_graph(back, {.types = types}) == text);
  }
}

void check_text_round_trip(const std::string& text) {
  INFO("source:\n" << text);
  check_round_trip(parse_graph(text, "t.eg", kData));
}

}  // namespace

TEST_CASE("every op of the catalogue survives print and parse") {
  const std::string defs = R"(
    (def twice (fn ((v (f64 ?))) (mul v 2)))
    (def stats (fn ((v (f64 ? ?))) (sum v) (max v)))
  )";
  for (int k = 0; k < kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    const OpInfo& info = op_info(kind);
    if (!parse_op(info.name)) continue;  // leaves and fn: covered below
    DYNAMIC_SECTION(info.name) {
      const std::string sample = op_sample(kind);
      INFO("add a sample for this op to op_sample()");
      REQUIRE(!sample.empty());
      const std::string text = fmt::format("{}{}(output {})\n", kInputs, defs, sample);
      const Graph g = parse_graph(text, "t.eg", kData);
      // The sample really applies this op (under at most one get).
      TermRef t = g.outputs[0].term;
      if (t->kind() != kind && t->kind() == OpKind::Get) t = t->operand(0);
      CHECK(t->kind() == kind);
      check_round_trip(g);
    }
  }
}

TEST_CASE("leaves, defs and bodies survive print and parse") {
  check_text_round_trip(R"(
    (input x (f64 2 3))
    (let c (const (f64 2 3) (1 2.5 -3 inf -inf nan)))
    (let w (load "f64_2x3.npy"))
    (def f (fn ((a (f64 ? 3)) (b (f64 2 3))) (let s (add a b)) (mul s s) (sum s)) :inline false)
    (def g (fn ((a (f64 ? 3)) (b (f64 2 3))) (let s (add a b)) (mul s s) (sum s)) :inline false)
    (def h (fn ((v f32)) (mul v 3)))
    (output (get 0 (call f x c)))
    (output (add (get 1 (call g w x)) (sum (mul c w))))
    (output (call h 2))
    (output flag (const bool (true)))
    (output big (const i64 (9007199254740993)))
  )");
}

TEST_CASE("every scan slot kind survives print and parse") {
  check_text_round_trip(R"(
    (input ys (f64 10))
    (input zs (f64 11 2))
    (input h0 (f64 3 2))
    (input x0 f64)
    (input a f64)
    (let s (scan :n-steps 8
                 :sequences (ys (zs :taps (0 2)))
                 :mit-sot ((h0 :taps (-3 -1)))
                 :sit-sot (x0 (zeros :shape (2) :dtype i32))
                 :nit-sot 2
                 :non-sequences (a (mul a 2))
                 :until true
                 :keep (all 3 1 all all)
                 (fn (y z0 z2 h3 h1 x n a1 a2)
                   (let s (add h1 h3))
                   (mul s a1)
                   (add x y)
                   (add n 1)
                   (mul z0 z2)
                   (sum (mul z0 a2))
                   (gt x 100.0))))
    (output (get 0 s))
    (output (get 1 s))
    (output (get 2 s))
    (output (get 3 s))
    (output (get 4 s))
  )");
}

TEST_CASE("nested scans, shared and literal operands survive print and parse") {
  check_text_round_trip(R"(
    (input m (f64 6 4))
    (input f (f32 4))
    (let rows (scan :sequences (m) :nit-sot 1
                (fn (row)
                  (let inner (scan :sequences (row) :sit-sot (1.0) (fn (v acc) (mul acc v))))
                  (add (get 0 inner) (index (get 0 inner) -1)))))
    (let deep (exp (exp (exp (exp (exp (exp (exp (exp (exp (exp (exp (exp f)))))))))))))
    (output (get 0 rows))
    (output (add deep 1))
    (output (mul 2 deep))
    (output (where (gt f 0.5) f 0))
    (let acc (scan :sequences (f) :sit-sot (0) (fn (x a) (add a x))))
    (output (get 0 acc))
    (output 7)
    (output 2.5)
  )");
}

TEST_CASE("every example survives print and parse") {
  const std::string dir = std::string(EQSAT_SOURCE_DIR) + "/examples";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".eg") continue;
    ++count;
    DYNAMIC_SECTION(entry.path().filename().string()) {
      check_round_trip(parse_graph_file(entry.path().string()));
    }
  }
  CHECK(count >= 6);
}

TEST_CASE("graphs built in C++ print as valid files") {
  // Constants whose dtype a bare literal would not give back, and a called
  // fn that no def names.
  const TermRef f = Term::input("f", {DType::F32, {3}});
  const TermRef c64 = Term::scalar(DType::F64, 2);
  const TermRef c32 = Term::scalar(DType::I32, 7);
  const TensorType s{DType::F64, {}};
  const TermRef body = Term::fn({s}, {Term::make(OpKind::Exp, {}, {Term::nominal(0, s)})});
  Graph g;
  g.inputs = {f};
  g.outputs = {{"a", Term::make(OpKind::Add, {}, {f, c64})},
               {"b", Term::make(OpKind::Mul, {}, {c32, c32})},
               {"c", Term::make(OpKind::Call, {}, {body, c64})},
               {"d", c32}};
  const std::string text = print_graph(g);
  CHECK(text.find("(const f64 (2.0))") != std::string::npos);
  CHECK(text.find("(def f0 (fn") != std::string::npos);
  Graph back = parse_graph(text, "printed.eg", kData);
  CHECK(back.outputs == g.outputs);
  CHECK(back.inputs == g.inputs);
}

TEST_CASE("let names avoid input names") {
  check_text_round_trip(R"(
    (input v0 (f64 3))
    (input p0 (f64 3))
    (let s (exp v0))
    (output (add s s))
    (output (mul s p0))
  )");
}

// ---- random well-typed graphs --------------------------------------------

namespace {

// Builds random graphs by applying random ops of the catalogue, with random
// attributes of the kinds each op accepts, to random earlier values; ill-typed
// applications are skipped. Scan bodies and defs are random graphs over
// nominals built the same way.
class RandomGraphs {
 public:
  explicit RandomGraphs(unsigned seed) : rng_(seed) {}

  Graph make() {
    Graph g;
    std::vector<TermRef> pool;
    const int num_inputs = pick(1, 4);
    for (int k = 0; k < num_inputs; ++k) {
      TermRef in = Term::input(fmt::format("x{}", k), random_type());
      g.inputs.push_back(in);
      pool.push_back(in);
    }
    if (coin()) {  // a def over the types of two inputs, so that calls can use them
      const TensorType a = pool[pick(0, num_inputs - 1)]->tensor_type();
      const TensorType b = pool[pick(0, num_inputs - 1)]->tensor_type();
      g.defs.push_back({"d0", random_body({a, b}, 1 + pick(0, 1))});
    }
    grow(pool, 20, &g);
    const int num_outputs = pick(1, 4);
    for (int k = 0; k < num_outputs; ++k) {
      // The latest values (the largest terms) first, then any.
      const int last = static_cast<int>(pool.size()) - 1;
      TermRef t = pool[k < 2 ? std::max(0, last - k) : pick(0, last)];
      if (t->is_tuple()) t = Term::make(OpKind::Get, {{AttrKey::Index, std::int64_t{0}}}, {t});
      g.outputs.push_back({fmt::format("{}{}", coin() ? "o" : "out", k), t});
    }
    return g;
  }

  // How often each op was built, over every graph made.
  const std::map<OpKind, int>& built() const { return built_; }
  // How many scans built had each slot kind (and how many were nested in a body).
  const std::map<std::string, int>& slot_kinds() const { return slot_kinds_; }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin() { return pick(0, 1) == 1; }

  TensorType random_type() {
    static const Dims kShapes[] = {{}, {3}, {2, 3}, {kUnknownDim}, {kUnknownDim, 3}, {1, 3}};
    static const DType kDTypes[] = {DType::F64, DType::F64, DType::F32,
                                    DType::I32, DType::I64, DType::Bool};
    return {kDTypes[pick(0, 5)], kShapes[pick(0, 5)]};
  }

  TermRef random_scalar() {
    const DType d = static_cast<DType>(pick(0, kNumDTypes - 1));
    const double v = is_float(d) ? pick(-8, 8) / 4.0 : pick(-3, 5);
    return Term::scalar(d, d == DType::Bool ? pick(0, 1) : v);
  }

  IntList random_ints(int n, int lo, int hi) {
    IntList out;
    for (int i = 0; i < n; ++i) out.push_back(pick(lo, hi));
    return out;
  }

  AttrValue random_attr(AttrKey key) {
    switch (key) {
      case AttrKey::Axis:
        return coin() ? AttrValue{std::int64_t{pick(-2, 2)}}
                      : AttrValue{random_ints(pick(1, 2), -2, 2)};
      case AttrKey::Keepdims:
        return coin();
      case AttrKey::Shape:
        return random_ints(pick(0, 2), coin() ? -1 : 1, 3);
      case AttrKey::Perm:
        return coin() ? IntList{1, 0} : IntList{0};
      case AttrKey::Dtype:
        return static_cast<DType>(pick(0, kNumDTypes - 1));
      default:
        return std::int64_t{pick(-3, 3)};
    }
  }

  // Applies random ops to values of `pool` (and new scalars), appending the
  // well-typed results. `g` is the graph whose defs calls may use.
  void grow(std::vector<TermRef>& pool, int steps, const Graph* g) {
    std::vector<OpKind> ops;
    for (int k = 0; k < kNumOps; ++k)
      if (parse_op(op_info(static_cast<OpKind>(k)).name)) ops.push_back(static_cast<OpKind>(k));
    for (int step = 0; step < steps * 4 && steps > 0; ++step) {
      const OpKind kind = ops[pick(0, static_cast<int>(ops.size()) - 1)];
      TermRef t = nullptr;
      try {
        t = apply(kind, pool, g);
      } catch (const TypeError&) {
        continue;
      }
      if (!t) continue;
      ++built_[kind];
      pool.push_back(t);
      --steps;
    }
  }

  TermRef operand(const std::vector<TermRef>& pool) {
    if (pick(0, 4) == 0) return random_scalar();
    TermRef t = pool[pick(0, static_cast<int>(pool.size()) - 1)];
    if (t->is_tuple()) t = Term::make(OpKind::Get, {{AttrKey::Index, std::int64_t{0}}}, {t});
    return t;
  }

  TermRef apply(OpKind kind, const std::vector<TermRef>& pool, const Graph* g) {
    const OpInfo& info = op_info(kind);
    if (kind == OpKind::Scan) return random_scan(pool);
    if (kind == OpKind::Call) {
      if (!g || g->defs.empty()) return nullptr;
      const TermRef fn = g->defs[0].term;
      std::vector<TermRef> operands{fn};
      for (const auto& p : fn->attrs().get<std::vector<TensorType>>(AttrKey::Params)) {
        std::vector<TermRef> fits;
        for (TermRef t : pool)
          if (!t->is_tuple() && compatible(p, t->tensor_type())) fits.push_back(t);
        if (fits.empty()) return nullptr;
        operands.push_back(fits[pick(0, static_cast<int>(fits.size()) - 1)]);
      }
      return Term::make(kind, {}, operands);
    }
    if (kind == OpKind::Get) {
      for (TermRef t : pool)
        if (t->is_tuple() && coin())
          return Term::make(kind, {{AttrKey::Index, std::int64_t{pick(0, 1)}}}, {t});
      return nullptr;
    }
    const int hi = info.max_arity < 0 ? info.min_arity + 2 : info.max_arity;
    const int n = pick(info.min_arity, hi);
    std::vector<TermRef> operands;
    for (int i = 0; i < n; ++i) operands.push_back(operand(pool));
    Attrs attrs;
    for (int key = 0; key < 32; ++key)
      if (info.accepts(static_cast<AttrKey>(key)) && coin())
        attrs.set(static_cast<AttrKey>(key), random_attr(static_cast<AttrKey>(key)));
    return Term::make(kind, attrs, operands);
  }

  // A body over parameters of `params` returning `outputs` values. Output k
  // < states.size() is a next state: a value of the state's type (its
  // fallback is the parameter `states[k].second`, which has that type).
  // With `until`, a bool scalar stop flag comes last.
  TermRef random_body(const std::vector<TensorType>& params, int outputs,
                      const std::vector<std::pair<TensorType, std::size_t>>& states = {},
                      bool until = false) {
    std::vector<TermRef> pool;
    for (std::size_t k = 0; k < params.size(); ++k)
      pool.push_back(Term::nominal(static_cast<std::int64_t>(k), params[k]));
    grow(pool, 3, nullptr);
    std::vector<TermRef> outs;
    for (int k = 0; k < outputs; ++k) {
      TermRef t = operand(pool);
      if (k < static_cast<int>(states.size())) {
        const auto& [type, fallback] = states[k];
        t = pool[fallback];
        for (TermRef c : pool)
          if (!c->is_tuple() && c->tensor_type() == type && coin()) t = c;
      }
      outs.push_back(t);
    }
    if (until) {
      TermRef flag = Term::scalar(DType::Bool, coin());
      for (TermRef c : pool)
        if (!c->is_tuple() && c->tensor_type() == TensorType{DType::Bool, {}} && coin()) flag = c;
      outs.push_back(flag);
    }
    return Term::fn(params, outs);
  }

  // A scan with random slots of every kind: sequences with taps, a mit-sot,
  // a sit-sot, nit-sots, non-sequences, n-steps, until and keep.
  TermRef random_scan(const std::vector<TermRef>& pool) {
    ScanSpec spec;
    std::vector<TermRef> operands{nullptr};
    std::vector<TensorType> params;
    std::vector<std::pair<TensorType, std::size_t>> states;
    auto element = [](const TensorType& t) {
      return TensorType{t.dtype, Dims(t.dims.begin() + 1, t.dims.end())};
    };
    std::vector<TermRef> tensors;
    for (TermRef t : pool)
      if (!t->is_tuple() && t->tensor_type().rank() >= 1) tensors.push_back(t);
    auto any_tensor = [&]() { return tensors[pick(0, static_cast<int>(tensors.size()) - 1)]; };
    if (tensors.empty() || coin()) {
      spec.has_n_steps = true;
      operands.push_back(Term::scalar(DType::I64, pick(0, 4)));
    }
    if (!tensors.empty() && (!spec.has_n_steps || coin())) {
      for (int k = pick(1, 2); k > 0; --k) {
        static const IntList kTaps[] = {{0}, {0, 1}, {1}, {0, 2}};
        spec.sequence_taps.push_back(kTaps[pick(0, 3)]);
        TermRef seq = any_tensor();
        for (std::size_t i = 0; i < spec.sequence_taps.back().size(); ++i)
          params.push_back(element(seq->tensor_type()));
        operands.push_back(seq);
      }
    }
    if (!tensors.empty() && coin()) {
      TermRef init = any_tensor();
      const std::int64_t lead = init->tensor_type().dims[0];
      const IntList taps = lead == 1 ? IntList{-1} : IntList{-2, -1};
      if (lead == kUnknownDim || lead == -taps.front()) {
        spec.mitsot_taps.push_back(taps);
        for (std::size_t i = 0; i < taps.size(); ++i)
          params.push_back(element(init->tensor_type()));
        states.push_back({params.back(), params.size() - 1});
        operands.push_back(init);
      }
    }
    if (coin() || (spec.mitsot_taps.empty() && spec.sequence_taps.empty())) {
      TermRef init = operand(pool);
      params.push_back(init->tensor_type());
      states.push_back({params.back(), params.size() - 1});
      operands.push_back(init);
      spec.num_sitsot = 1;
    }
    for (int k = pick(0, 1); k > 0; --k) {
      operands.push_back(operand(pool));
      params.push_back(operands.back()->tensor_type());
      ++spec.num_nonsequences;
    }
    spec.num_nitsot = pick(0, 1);
    spec.until = pick(0, 3) == 0;
    if (coin()) spec.keep = random_ints(static_cast<int>(spec.num_outputs()), 0, 2);
    operands[0] = random_body(params, static_cast<int>(spec.num_outputs()), states, spec.until);
    TermRef scan = Term::make(OpKind::Scan, {{AttrKey::Scan, spec}}, operands);
    slot_kinds_["n-steps"] += spec.has_n_steps;
    slot_kinds_["sequence taps"] += std::ranges::any_of(
        spec.sequence_taps, [](const IntList& taps) { return taps != IntList{0}; });
    slot_kinds_["mit-sot"] += !spec.mitsot_taps.empty();
    slot_kinds_["sit-sot"] += spec.num_sitsot > 0;
    slot_kinds_["nit-sot"] += spec.num_nitsot > 0;
    slot_kinds_["non-sequence"] += spec.num_nonsequences > 0;
    slot_kinds_["until"] += spec.until;
    slot_kinds_["keep"] += !scan->attrs().get<ScanSpec>(AttrKey::Scan).keep.empty();
    slot_kinds_["nested"] += !scan->free_nominals().empty();
    return scan;
  }

  std::mt19937 rng_;
  std::map<OpKind, int> built_;
  std::map<std::string, int> slot_kinds_;
};

}  // namespace

TEST_CASE("random well-typed graphs survive print and parse (many seeds)") {
  std::map<OpKind, int> built;
  std::map<std::string, int> slot_kinds;
  // Enough seeds that ops which rarely type-check (inc_index) are built.
  for (unsigned seed = 0; seed < 2000; ++seed) {
    RandomGraphs gen(seed);
    const Graph g = gen.make();
    INFO("seed " << seed);
    check_round_trip(g);
    for (const auto& [kind, n] : gen.built()) built[kind] += n;
    for (const auto& [kind, n] : gen.slot_kinds()) slot_kinds[kind] += n;
  }
  for (const char* kind : {"n-steps", "sequence taps", "mit-sot", "sit-sot", "nit-sot",
                           "non-sequence", "until", "keep", "nested"}) {
    INFO("no random scan had " << kind);
    CHECK(slot_kinds[kind] > 0);
  }
  // The generator reaches every op of the catalogue.
  for (int k = 0; k < kNumOps; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (!parse_op(op_info(kind).name)) continue;
    INFO("op " << op_info(kind).name << " was never built");
    CHECK(built[kind] > 0);
  }
}

TEST_CASE("constants of random bits print back bit for bit (every dtype)") {
  std::mt19937_64 rng(7);
  for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64}) {
    Array a(d, {256});
    for (std::int64_t i = 0; i < a.size(); ++i) {
      const std::uint64_t bits = rng();
      visit_dtype(d, [&]<class T>(std::type_identity<T>) {
        if constexpr (std::is_same_v<T, bool>) {
          a.data<T>()[i] = bits & 1;
        } else {
          std::memcpy(a.data<T>() + i, &bits, sizeof(T));
          if constexpr (std::is_floating_point_v<T>)
            if (std::isnan(a.data<T>()[i])) a.data<T>()[i] = 0;  // NaN payloads are not kept
        }
      });
    }
    Graph g;
    g.outputs = {{"c", Term::constant(a)}, {"s", Term::constant(a.reshaped({256}).clone())}};
    // Scalars too: they may print as bare literals.
    for (std::int64_t i = 0; i < 8; ++i) {
      Array s(d, {});
      std::memcpy(s.bytes(), a.bytes() + i * dtype_size(d), dtype_size(d));
      g.outputs.push_back({fmt::format("x{}", i), Term::constant(s)});
    }
    INFO(dtype_name(d));
    check_round_trip(g);
  }
}

TEST_CASE("f32 constants print as their shortest text and read back bit for bit") {
  // The shortest text reads back through the parser's double.
  Array few(DType::F32, {5});
  const float values[] = {0.1f, 1.0f, -2.5f, 1e10f, 3e-5f};
  std::memcpy(few.data<float>(), values, sizeof values);
  Graph g;
  g.outputs = {{"c", Term::constant(few)}};
  CHECK(print_graph(g).find("(0.1 1.0 -2.5 10000000000.0 3e-05)") != std::string::npos);
  // Random bits (every exponent, subnormals among them) and the extremes.
  std::mt19937 rng(11);
  Array many(DType::F32, {1 << 17});
  for (std::int64_t i = 0; i < many.size(); ++i) {
    std::uint32_t bits = rng();
    if ((bits & 0x7f800000u) == 0x7f800000u) bits &= 0xff7fffffu;  // no ∞ or NaN
    std::memcpy(many.data<float>() + i, &bits, sizeof bits);
  }
  const float extremes[] = {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::denorm_min(),
                            std::nextafter(std::numeric_limits<float>::min(), 0.0f)};
  std::memcpy(many.data<float>(), extremes, sizeof extremes);
  Graph big;
  big.outputs = {{"m", Term::constant(many)}};
  check_round_trip(big);
}
