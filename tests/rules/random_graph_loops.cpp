// The random graph generator's loops, defs, calls and gradients
// (random_graph.hpp).
#include "tests/rules/random_graph.hpp"

#include "ops/type_error.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <set>
#include <span>

namespace eqsat::testing {

using ops::AttrKey;
using ops::Attrs;
using ops::Dims;
using ops::DType;
using ops::IntList;
using ops::OpKind;
using ops::TensorType;
using ops::Term;
using ops::TermRef;

void ProgramGenerator::make_def() {
  std::vector<TensorType> params;
  for (int k = pick(1, 2); k > 0; --k) {
    const auto i =
        static_cast<std::size_t>(pick(0, static_cast<int>(case_.graph.inputs.size()) - 1));
    params.push_back(case_.graph.inputs[i]->tensor_type());
    if (!options_.corners || params.back().dims.empty()) continue;
    if (params.back().dims[0] == ops::kUnknownDim) {
      params.back().dims = case_.input_dims[i];  // called with a less-known argument
    } else if (coin()) {
      params.back().dims[0] = ops::kUnknownDim;  // called with a known length
      count("def-unknown-param");
    }
  }
  std::vector<TermRef> body;
  for (std::size_t k = 0; k < params.size(); ++k)
    body.push_back(Term::nominal(static_cast<std::int64_t>(k), params[k]));
  grow(body, pick(1, 4), 1);
  Operands outs{body.back()};
  if (coin()) outs.push_back(choose(body));
  TermRef fn = Term::fn(params, outs);
  if (pick(0, 3) == 0) {
    Attrs attrs = fn->attrs();
    attrs.set(AttrKey::Inline, false);
    fn = Term::make(OpKind::Fn, attrs, outs);
  }
  std::string name = "d";
  name.append(std::to_string(case_.graph.defs.size()));
  case_.graph.defs.push_back({name, fn});
}
namespace {

// `t` is `p` with some known dimension unknown: a call's argument that the
// parameter's type is checked against only at run time.
bool less_known(const TensorType& t, const TensorType& p) {
  if (t.dtype != p.dtype || t.dims.size() != p.dims.size() || t == p) return false;
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    if (t.dims[i] != p.dims[i] && t.dims[i] != ops::kUnknownDim) return false;
  return true;
}

}  // namespace

TermRef ProgramGenerator::call(const std::vector<TermRef>& pool) {
  const auto& def = choose(case_.graph.defs);
  Operands operands{def.term};
  for (const auto& p : def.term->attrs().get<std::vector<TensorType>>(AttrKey::Params)) {
    std::vector<TermRef> fits;
    for (TermRef t : pool)
      if (t->tensor_type() == p || (options_.corners && less_known(t->tensor_type(), p)))
        fits.push_back(t);
    if (fits.empty()) return nullptr;
    operands.push_back(choose(fits));
  }
  TermRef c = make(OpKind::Call, {}, operands, "call");
  for (std::size_t i = 1; i < operands.size(); ++i)
    if (!(operands[i]->tensor_type() ==
          c->operand(0)->attrs().get<std::vector<TensorType>>(AttrKey::Params)[i - 1]))
      count("call-less-known");
  if (c->is_tuple()) c = Term::make(OpKind::Get, {{AttrKey::Index, std::int64_t{pick(0, 1)}}}, {c});
  return c;
}
TermRef ProgramGenerator::scan(const std::vector<TermRef>& pool, int depth) {
  ops::ScanSpec spec;
  Operands operands{nullptr};
  std::vector<TensorType> params;
  std::vector<TermRef> seqs;
  for (TermRef t : pool)
    if (rank(t) >= 1 && t->tensor_type().dims[0] != ops::kUnknownDim &&
        ops::is_float(t->tensor_type().dtype))
      seqs.push_back(t);
  TermRef seq = nullptr;
  if (!seqs.empty() && coin()) {
    seq = choose(seqs);
    // Taps (0) or, on a sequence of two or more rows, (0 1).
    const bool two = seq->tensor_type().dims[0] >= 2 && pick(0, 2) == 0;
    spec.sequence_taps.push_back(two ? IntList{0, 1} : IntList{0});
    operands.push_back(seq);
    const Dims& d = seq->tensor_type().dims;
    for (int k = two ? 2 : 1; k > 0; --k)
      params.push_back({seq->tensor_type().dtype, Dims(d.begin() + 1, d.end())});
    if (two) count("scan-taps");
  } else {
    spec.has_n_steps = true;
    TermRef n = nullptr;
    if (options_.corners && depth == 0 && loop_depth_ == 0 && late_rng_() % 4 == 0) {
      // A step count known only when the loop runs, 0 to 4: a loop that
      // may run no step (issue 25: its initial states' NaN derivatives).
      n = Term::make(OpKind::Abs, {}, {new_input({}, DType::I64, true)});
      count("scan-runtime-steps");
    } else {
      const int steps = pick(0, 4);
      if (steps == 0) count("scan-zero-steps");
      n = Term::scalar(DType::I64, steps);
    }
    operands.insert(operands.begin() + 1, n);
  }
  std::vector<TermRef> floats;
  for (TermRef t : pool)
    if (ops::is_float(t->tensor_type().dtype)) floats.push_back(t);
  if (floats.empty()) return nullptr;
  // State parameters (the last tap of each), in output order.
  std::vector<std::size_t> state_params;
  if (pick(0, 3) == 0) {  // a mit-sot: its history is the same value stacked
    static const std::vector<IntList> kTaps = {{-1}, {-2, -1}, {-3, -1}, {-2}};
    const IntList& taps = choose(kTaps);
    TermRef t = choose(floats);
    operands.push_back(make(OpKind::Stack, {{AttrKey::Axis, std::int64_t{0}}},
                            Operands(static_cast<std::size_t>(-taps.front()), t), "stack"));
    spec.mitsot_taps.push_back(taps);
    for (std::size_t k = 0; k < taps.size(); ++k) params.push_back(t->tensor_type());
    state_params.push_back(params.size() - 1);
    count("scan-mitsot");
  }
  const int num_states = pick(1, 2);
  // An accumulator starts from a row of the sequence: its type.
  const bool accumulate = seq && seq->tensor_type().dims[0] >= 1 && coin();
  for (int k = 0; k < num_states; ++k) {
    TermRef init = choose(floats);
    if (accumulate && k == 0)
      init = Term::make(OpKind::Index, {}, {seq, Term::scalar(DType::I64, 0)});
    operands.push_back(init);
    state_params.push_back(params.size());
    params.push_back(init->tensor_type());
  }
  // In corners, an i64 step counter (issue 25 point 2: a loop's steps cast
  // into its result, and an `:until` on them).
  const bool counter = options_.corners && pick(0, 2) == 0;
  if (counter) {
    operands.push_back(Term::scalar(DType::I64, 0));
    state_params.push_back(params.size());
    params.push_back({DType::I64, {}});
  }
  spec.num_sitsot = num_states + (counter ? 1 : 0);
  std::vector<std::size_t> nonseq_params;
  for (int k = pick(0, 3); k > 0; --k) {
    TermRef v;
    const int kind = pick(0, 3);
    if (kind == 0 && spec.num_nonsequences > 0)
      v = operands.back();  // a duplicate
    else if (kind == 1)
      v = Term::scalar(DType::F64, literal_value());  // a constant
    else
      v = choose(floats);
    operands.push_back(v);
    nonseq_params.push_back(params.size());
    params.push_back(v->tensor_type());
    ++spec.num_nonsequences;
  }
  // The body: invariant work over non-sequences first, then random ops.
  std::vector<TermRef> body;
  for (std::size_t k = 0; k < params.size(); ++k)
    body.push_back(Term::nominal(static_cast<std::int64_t>(k), params[k]));
  ++loop_depth_;
  if (!nonseq_params.empty()) {
    std::vector<TermRef> invariant;
    for (std::size_t p : nonseq_params) invariant.push_back(body[p]);
    grow(invariant, 2, depth + 1);
    for (std::size_t i = nonseq_params.size(); i < invariant.size(); ++i)
      body.push_back(invariant[i]);
  }
  grow(body, pick(1, 4), depth + 1);
  --loop_depth_;
  Operands outs;
  for (std::size_t n = 0; n < state_params.size(); ++n) {
    const std::size_t p = state_params[n];
    const TensorType& type = params[p];
    TermRef next = body[p];
    if (counter && n + 1 == state_params.size()) {
      outs.push_back(Term::make(OpKind::Add, {}, {body[p], Term::scalar(DType::I64, 1)}));
      continue;
    }
    if (accumulate && n == spec.mitsot_taps.size()) {
      outs.push_back(accumulator(body[p], body[0], nonseq_params, body));
      continue;
    }
    for (TermRef c : body)
      if (c->tensor_type() == type && coin()) next = c;
    if (next == body[p] && ops::is_float(type.dtype)) {
      // h' = tanh(h + something that broadcasts to h), so states stay bounded.
      TermRef plus = Term::make(OpKind::Add, {}, {body[p], choose(body)});
      if (plus->tensor_type() == type) next = Term::make(OpKind::Tanh, {}, {plus});
    }
    outs.push_back(next);
  }
  if (coin()) {
    spec.num_nitsot = 1;
    outs.push_back(choose(body));
  }
  const bool until_counter = counter && coin();
  if (until_counter) {  // stop after K steps, counted
    spec.until = true;
    const std::size_t p = state_params.back();
    TermRef next = Term::make(OpKind::Add, {}, {body[p], Term::scalar(DType::I64, 1)});
    outs.push_back(Term::make(OpKind::Ge, {}, {next, Term::scalar(DType::I64, pick(1, 5))}));
    count("scan-until");
    count("scan-until-counter");
  } else if (pick(0, 4) == 0) {  // stop once the first state's total exceeds 1
    spec.until = true;
    TermRef total = Term::make(OpKind::Sum, {}, {outs[0]});
    outs.push_back(
        Term::make(OpKind::Gt, {}, {total, Term::scalar(total->tensor_type().dtype, 1)}));
    count("scan-until");
  }
  if (pick(0, 5) == 0) {  // a :keep written by the user
    for (std::int64_t o = 0; o < spec.num_outputs(); ++o)
      spec.keep.push_back(coin() ? 0 : pick(1, 3));
    count("scan-keep");
  }
  operands[0] = Term::fn(params, outs);
  TermRef s = make(OpKind::Scan, {{AttrKey::Scan, spec}}, operands, "scan");
  count(spec.num_nonsequences > 0 ? "scan-nonseq" : "scan-no-nonseq");
  if (!spec.sequence_taps.empty()) count("scan-sequence");
  if (spec.num_nitsot > 0) count("scan-nitsot");
  if (loop_depth_ > 0)
    count("scan-nested");
  else if (depth > 0)
    count("scan-in-def");
  // Use one output (the accumulator when there is one), whole or some of
  // its first or last steps, leaving the others unused.
  const std::int64_t index = accumulate && coin()
                                 ? static_cast<std::int64_t>(spec.mitsot_taps.size())
                                 : pick(0, static_cast<int>(spec.num_outputs()) - 1);
  TermRef out = Term::make(OpKind::Get, {{AttrKey::Index, index}}, {s});
  if (counter && coin()) {  // the steps counted, as floats
    const auto at = static_cast<std::int64_t>(spec.mitsot_taps.size()) + num_states;
    out = Term::make(OpKind::Cast, {{AttrKey::Dtype, DType::F64}},
                     {Term::make(OpKind::Get, {{AttrKey::Index, at}}, {s})});
    count("scan-counter-cast");
  }
  const TermRef read = read_steps(out, depth);
  if (spec.until && read->kind() == OpKind::Index && read->operand(1)->kind() == OpKind::Input)
    count("scan-until-read-runtime-index");
  return read;
}
TermRef ProgramGenerator::accumulator(TermRef h, TermRef x,
                                      const std::vector<std::size_t>& nonseq_params,
                                      const std::vector<TermRef>& body) {
  static const std::vector<OpKind> kAcc = {OpKind::Add, OpKind::Mul, OpKind::Maximum,
                                           OpKind::Minimum};
  static const std::vector<OpKind> kUnary = {OpKind::Tanh, OpKind::Sin, OpKind::Square, OpKind::Neg,
                                             OpKind::Abs};
  TermRef f = Term::make(choose(kUnary), {}, {x});
  if (!nonseq_params.empty() && coin()) {
    TermRef w = body[choose(nonseq_params)];
    TermRef g = Term::make(coin() ? OpKind::Add : OpKind::Mul, {}, {f, w});
    if (g->tensor_type() == h->tensor_type()) f = g;
  }
  const OpKind op = choose(kAcc);
  if (op == OpKind::Mul) f = Term::make(OpKind::Tanh, {}, {f});  // products stay bounded
  count("scan-accumulate");
  return Term::make(op, {}, coin() ? Operands{h, f} : Operands{f, h});
}
TermRef ProgramGenerator::read_steps(TermRef out, int depth) {
  const std::int64_t len = out->tensor_type().dims[0];
  const int known = len == ops::kUnknownDim ? 3 : static_cast<int>(len);
  if (options_.corners && depth == 0 && loop_depth_ == 0 && pick(0, 2) == 0) {
    // An index known only at run time, often negative (issue 25 point 1).
    count("scan-read-runtime-index");
    return Term::make(OpKind::Index, {}, {out, new_input({}, DType::I64, true)});
  }
  if (known == 0) return out;
  auto lit = [](std::int64_t v) { return Term::scalar(DType::I64, static_cast<double>(v)); };
  switch (pick(0, 5)) {
    case 0:
    case 1:
      count("scan-read-last");
      return Term::make(OpKind::Index, {}, {out, lit(-pick(1, std::min(known, 2)))});
    case 2:
      count("scan-read-first");
      return Term::make(OpKind::Index, {}, {out, lit(pick(0, known - 1))});
    case 3:
      count("scan-read-last");
      return Term::make(
          OpKind::Slice,
          {{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, std::int64_t{-pick(1, known)}}},
          {out});
    case 4:
      count("scan-read-first");
      return Term::make(
          OpKind::Slice,
          {{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Stop, std::int64_t{pick(1, known)}}}, {out});
    default:
      return out;
  }
}
void ProgramGenerator::add_gradients() {
  std::vector<TermRef> wrts;
  for (TermRef in : case_.graph.inputs)
    if (in->tensor_type().dtype == DType::F64) wrts.push_back(in);
  std::vector<TermRef> costs;
  for (TermRef t : pool_)
    if (!t->is_tuple() && t->kind() != OpKind::Fn && t->tensor_type().dtype == DType::F64)
      costs.push_back(t);
  if (wrts.empty() || costs.empty()) return;
  for (int k = pick(1, 2); k > 0; --k) {
    // The last values (which hold most of the graph) more often.
    const int last = static_cast<int>(costs.size()) - 1;
    TermRef out = costs[static_cast<std::size_t>(coin() ? last : pick(0, last))];
    TermRef cost = Term::make(OpKind::Sum, {}, {out});
    std::string name = "grad";
    name.append(std::to_string(case_.gradients.size()));
    case_.gradients.push_back({name, Term::make(OpKind::Grad, {}, {cost, choose(wrts)})});
    count("grad");
    count_gradient_corners(cost, case_.gradients.back().term->operand(1));
  }
}
void ProgramGenerator::count_gradient_corners(TermRef cost, TermRef wrt) {
  std::set<std::string> seen;
  const std::vector<TermRef> inputs = case_.graph.inputs;
  ops::for_each_post_order(std::span(&cost, 1), ops::Bodies::Enter, [&](TermRef t) {
    const OpKind k = t->kind();
    if (t == wrt) seen.insert("wrt");
    if (k == OpKind::Scan) {
      const auto& spec = t->attrs().get<ops::ScanSpec>(AttrKey::Scan);
      if (spec.until) seen.insert("until");
      const ops::Array* steps = spec.has_n_steps ? t->operand(1)->const_value() : nullptr;
      if (steps && steps->element(0) == 0) seen.insert("zero-steps");
      if (spec.has_n_steps && !steps) seen.insert("runtime-steps");
    } else if (k == OpKind::Input && !t->tensor_type().dims.empty() &&
               t->tensor_type().dims[0] == ops::kUnknownDim) {
      const auto i = static_cast<std::size_t>(std::ranges::find(inputs, t) - inputs.begin());
      if (case_.input_dims[i][0] <= 1)
        seen.insert(case_.input_dims[i][0] == 1 ? "input-size-1" : "input-empty");
    } else if (k == OpKind::Index && t->operand(1)->kind() == OpKind::Input) {
      seen.insert("read-runtime-index");
    } else if (k == OpKind::SetIndex || k == OpKind::Cast) {
      seen.insert(k == OpKind::Cast ? "cast" : "set_index");
    } else if (k == OpKind::BroadcastLike) {
      seen.insert("broadcast-like");
    } else if (k == OpKind::Call) {
      seen.insert("call");
      const auto& params = t->operand(0)->attrs().get<std::vector<TensorType>>(AttrKey::Params);
      for (std::size_t a = 1; a < t->arity(); ++a)
        if (!(t->operand(a)->tensor_type() == params[a - 1])) seen.insert("call-less-known");
    }
  });
  if (!seen.contains("wrt")) return;
  for (const char* corner : {"zero-steps", "runtime-steps", "input-size-1", "input-empty",
                             "call-less-known", "broadcast-like"})
    if (seen.contains(corner)) count(std::string("grad-") + corner);
  if (!seen.contains("until")) return;
  count("grad-until");
  for (const char* with : {"set_index", "call", "cast", "read-runtime-index"})
    if (seen.contains(with)) count(std::string("grad-until-") + with);
}

}  // namespace eqsat::testing
