// The pullback of a scan: a reverse scan (gradient.hpp says what it reads
// and carries). Loops whose number of steps is only known when they run
// (`:until`, or sequences of unknown length) run the reverse loop over the
// steps the forward loop actually ran: `(dim (get 0 fwd) :axis 0)`.
#include "rules/autodiff/reverse_loop.hpp"

#include "ops/op_dispatch.hpp"

namespace eqsat::rules {
namespace reverse_loop {

namespace {

// A mit-sot's cotangents owed to states, one step further back: `pending`
// (row d: state t - d) shifted by one state, plus what this step's reads
// (`reads`, one per tap) owe: tap k read state t + k, row -1 - k.
TermRef next_pending(TermRef pending, const ops::IntList& taps, const std::vector<TermRef>& reads) {
  const auto depth = static_cast<std::size_t>(-taps.front());
  const TermRef row0 = make(OpKind::Index, {pending, i64(0)});
  std::vector<TermRef> owed(depth, nullptr);
  for (std::size_t r = 0; r < taps.size(); ++r)
    owed[static_cast<std::size_t>(-1 - taps[r])] = reads[r];
  for (auto& r : owed)
    if (!r) r = make(OpKind::ZerosLike, {row0});
  const TermRef now = make(OpKind::Stack, owed, {{AttrKey::Axis, std::int64_t{0}}});
  if (depth == 1) return now;
  const TermRef shifted =
      make(OpKind::Concat,
           {rows(pending, 1, 0), make(OpKind::ExpandDims, {make(OpKind::ZerosLike, {row0})},
                                      {{AttrKey::Axis, std::int64_t{0}}})},
           {{AttrKey::Axis, std::int64_t{0}}});
  return make(OpKind::Add, {shifted, now});
}

// True when the output cotangent `g` is known to reach the last row (a
// dense cotangent, one row set at index -1, rows to the end): then every
// step of the reverse loop starts from a nonzero seed, and no step needs
// zero masks. Rows after the last one read otherwise have zero seeds.
// Every op is named (dispatch_op): creation and indexing ops, which can
// leave rows zero, each say here whether they do, so a new one does not
// compile until it does; the value of any other op is dense.
bool reaches_last_row(TermRef g) {
  return ops::dispatch_op(g->kind(), [&]<OpKind K>(std::integral_constant<OpKind, K>) -> bool {
    if constexpr (K == OpKind::Add) {
      return reaches_last_row(g->operand(0)) || reaches_last_row(g->operand(1));
    } else if constexpr (K == OpKind::IncIndex || K == OpKind::SetIndex) {
      const ops::Array* i = g->operand(1)->const_value();
      return i && i->element(0) == -1;
    } else if constexpr (K == OpKind::IncSlice || K == OpKind::SetSlice) {
      return !g->attrs().has(AttrKey::Stop) &&
             g->attrs().get_or<std::int64_t>(AttrKey::Step, 1) == 1;
    } else if constexpr (K == OpKind::Zeros || K == OpKind::ZerosLike) {
      return false;
    } else if constexpr (K == OpKind::ResizeRows) {
      return false;  // may pad with zero rows: the pullback of a cut to fewer rows
    } else {
      constexpr ops::OpGroup group = ops::group_of(K);
      static_assert((group != ops::OpGroup::Creation && group != ops::OpGroup::Indexing) ||
                        K == OpKind::Ones || K == OpKind::OnesLike || K == OpKind::Full ||
                        K == OpKind::Arange || K == OpKind::Index || K == OpKind::Slice,
                    "a creation or indexing op: say whether it reaches the last row");
      return true;
    }
  });
}

// The value of a carried cotangent after the reverse loop: its last row
// (`kept`, stored with `:keep 1`); `init` when the loop may run no step
// (the cotangent passes through unchanged).
TermRef after_loop(const Forward& f, TermRef kept, TermRef init) {
  if (f.steps != ops::kUnknownDim && f.steps >= 1) return last(kept);
  const TermRef row = make(OpKind::ExpandDims, {init}, {{AttrKey::Axis, std::int64_t{0}}});
  return last(make(OpKind::Concat, {row, kept}, {{AttrKey::Axis, std::int64_t{0}}}));
}

}  // namespace

// Longer than our ~80-line mark on purpose: the steps (reverse-loop
// parameters, the body's pullback at one step, carried outputs, results)
// share a dozen position tables (args, float_wrt_params, mit_first,
// sit_first, non_first, acc_of, carry, pending, seq_out) that place each
// cotangent in one loop's operand and output lists; split, every step
// would take most of them, and the positions would be checked against each
// other across functions. The self-contained mit-sot law is next_pending.
std::vector<TermRef> taped_pullback(const Forward& f, const std::vector<TermRef>& gouts,
                                    const std::vector<TermRef>& finals) {
  const ops::ScanSpec& spec = f.spec;
  const SequenceView view{f};
  const Reach reached = reach(f, gouts, finals);
  auto cot = [&](std::size_t i) { return i < gouts.size() ? gouts[i] : nullptr; };
  LoopBuilder b;
  std::vector<TermRef> args(f.params.size());  // forward parameter -> reverse nominal
  std::vector<std::size_t> float_wrt_params;   // forward parameters differentiated
  // Sequence parameters: the rows each step read, flipped.
  struct SeqParam {
    std::size_t seq;
    std::int64_t tap, max_tap;
  };
  std::vector<SeqParam> seq_params;
  std::size_t p = 0;
  for (std::size_t i = 0; i < f.nseq; ++i)
    for (std::int64_t k : spec.sequence_taps[i]) {
      const std::int64_t max_tap = spec.sequence_taps[i].back();
      args[p] = b.sequence(flip0(view.read(f.seq(i), k, max_tap)));
      seq_params.push_back({i, k, max_tap});
      if (reached.params[p]) float_wrt_params.push_back(p);
      ++p;
    }
  // Mit-sot j at tap k < 0 reads H[t + depth + k] of its whole history
  // H = concat(initial history, states): rows [depth + k, k - 0) of H.
  std::vector<std::size_t> mit_first(f.nmit);
  for (std::size_t j = 0; j < f.nmit; ++j) {
    mit_first[j] = p;
    const auto depth = -spec.mitsot_taps[j].front();
    const TermRef whole =
        make(OpKind::Concat, {f.history(j), get(f.scan, j)}, {{AttrKey::Axis, std::int64_t{0}}});
    for (std::int64_t k : spec.mitsot_taps[j]) {
      args[p] = b.sequence(flip0(rows(whole, depth + k, k)));
      if (reached.params[p]) float_wrt_params.push_back(p);
      ++p;
    }
  }
  // Sit-sot j at step t reads the state of step t - 1: concat(init, states[:-1]).
  const std::size_t sit_first = p;
  for (std::size_t j = 0; j < f.nsit; ++j, ++p) {
    const TermRef prev =
        make(OpKind::Concat,
             {make(OpKind::ExpandDims, {f.init(j)}, {{AttrKey::Axis, std::int64_t{0}}}),
              rows(get(f.scan, f.nmit + j), 0, -1)},
             {{AttrKey::Axis, std::int64_t{0}}});
    args[p] = b.sequence(flip0(prev));
    if (reached.params[p]) float_wrt_params.push_back(p);
  }
  // The output cotangents, flipped (only those given).
  std::vector<TermRef> gout_param(f.outs.size(), nullptr);
  for (std::size_t i = 0; i < f.outs.size(); ++i)
    if (cot(i) && f.float_out(i)) gout_param[i] = b.sequence(flip0(cot(i)));
  // Carried (only where a cotangent reaches: Reach): per sit-sot its
  // cotangent; per mit-sot the cotangents owed by later steps' reads to the
  // current state and the depth - 1 before it (row d: state t - d); per
  // non-sequence the sum of its cotangents.
  std::vector<TermRef> carry(f.nsit, nullptr), pending(f.nmit, nullptr);
  std::vector<TermRef> carry_init(f.nsit, nullptr), pending_init(f.nmit, nullptr);
  for (std::size_t j = 0; j < f.nsit; ++j)
    if (reached.live[f.nmit + j]) {
      carry_init[j] = final_cotangent(f, finals, j);
      carry[j] = b.sitsot(carry_init[j]);
    }
  for (std::size_t j = 0; j < f.nmit; ++j)
    if (reached.live[j]) {
      pending_init[j] = make(OpKind::ZerosLike, {f.history(j)});
      pending[j] = b.sitsot(pending_init[j]);
    }
  const std::size_t non_first = p;
  std::vector<std::size_t> acc_of;  // accumulated non-sequences
  std::vector<TermRef> acc, acc_init;
  for (std::size_t m = 0; m < f.nnon; ++m)
    if (reached.params[non_first + m]) {
      acc_of.push_back(m);
      acc_init.push_back(make(OpKind::ZerosLike, {f.non(m)}));
      acc.push_back(b.sitsot(acc_init.back()));
      float_wrt_params.push_back(non_first + m);
    }
  for (std::size_t m = 0; m < f.nnon; ++m)
    args[non_first + m] = b.nonsequence(f.non(m), f.params[non_first + m]);

  // The body on the reverse loop's parameters, and its pullback at one step.
  Instantiate inst(args);
  const TermRef zero = i64(0);
  std::vector<TermRef> body, seeds, masks;
  const bool dense =
      std::ranges::all_of(gouts, [](TermRef g) { return !g || reaches_last_row(g); });
  for (std::size_t i = 0; i < f.outs.size(); ++i) {
    body.push_back(inst(f.fn->operand(i)));
    TermRef s = gout_param[i];
    auto plus = [&](TermRef t) { s = s ? make(OpKind::Add, {s, t}) : t; };
    if (i < f.nmit && pending[i]) plus(make(OpKind::Index, {pending[i], zero}));
    if (i >= f.nmit && i < f.nmit + f.nsit && carry[i - f.nmit]) plus(carry[i - f.nmit]);
    seeds.push_back(s);
    // Zero where the step's cotangent is zero (a row after the last one
    // read): an op differentiated there gives 0, not 0 * NaN (a state
    // gone NaN after the last step read).
    masks.push_back(s && !dense ? make(OpKind::Eq, {s, Term::scalar(s->tensor_type().dtype, 0.0)})
                                : nullptr);
  }
  std::vector<TermRef> wrts;
  for (std::size_t q : float_wrt_params) wrts.push_back(args[q]);
  std::vector<TermRef> gw = vjp(body, seeds, wrts, {}, masks);
  std::unordered_map<std::size_t, TermRef> g_of;  // forward parameter -> its cotangent
  for (std::size_t i = 0; i < wrts.size(); ++i)
    g_of[float_wrt_params[i]] = gw[i] ? gw[i] : make(OpKind::ZerosLike, {wrts[i]});

  // A sit-sot carried for its last state's cotangent alone (`finals`) owes
  // the steps before nothing.
  for (std::size_t j = 0; j < f.nsit; ++j)
    if (carry[j])
      b.sitsot_outs.push_back(reached.params[sit_first + j] ? g_of.at(sit_first + j)
                                                            : make(OpKind::ZerosLike, {carry[j]}));
  for (std::size_t j = 0; j < f.nmit; ++j) {
    if (!pending[j]) continue;
    std::vector<TermRef> reads;  // per tap of mit-sot j, the cotangent of what it read
    for (std::size_t k = 0; k < spec.mitsot_taps[j].size(); ++k)
      reads.push_back(reached.params[mit_first[j] + k] ? g_of.at(mit_first[j] + k) : nullptr);
    b.sitsot_outs.push_back(next_pending(pending[j], spec.mitsot_taps[j], reads));
  }
  for (std::size_t a = 0; a < acc.size(); ++a)
    b.sitsot_outs.push_back(make(OpKind::Add, {acc[a], g_of.at(non_first + acc_of[a])}));
  // Carried cotangents are read only after the last step: keep one.
  b.keep.assign(b.sitsot_outs.size(), 1);
  std::vector<std::size_t> seq_out;  // float sequence parameters, in nit-sot order
  for (std::size_t q = 0; q < seq_params.size(); ++q)
    if (g_of.contains(q)) {
      seq_out.push_back(q);
      b.nitsot_outs.push_back(g_of.at(q));
      b.keep.push_back(0);
    }
  if (b.sitsot_outs.empty() && b.nitsot_outs.empty()) return {};
  const TermRef rev = b.build(f.steps_term);

  std::vector<TermRef> out(f.scan->arity(), nullptr);
  std::size_t r = 0;
  for (std::size_t j = 0; j < f.nsit; ++j) {
    if (!carry[j]) continue;
    const TermRef g = after_loop(f, get(rev, r++), carry_init[j]);
    // A state the body never differentiates passes its last cotangent to
    // its initial value only when the loop ran no step.
    if (reached.read[f.nmit + j] || f.steps == ops::kUnknownDim || f.steps == 0)
      out[f.off + f.nseq + f.nmit + j] = g;
  }
  for (std::size_t j = 0; j < f.nmit; ++j)
    if (pending[j]) out[f.off + f.nseq + j] = flip0(after_loop(f, get(rev, r++), pending_init[j]));
  for (std::size_t a = 0; a < acc.size(); ++a)
    out[f.off + f.nseq + f.nmit + f.nsit + acc_of[a]] = after_loop(f, get(rev, r++), acc_init[a]);
  for (std::size_t q : seq_out) {
    const auto& sp = seq_params[q];
    const TermRef x = f.seq(sp.seq);
    const TermRef g = view.write(x, flip0(get(rev, r++)), sp.tap, sp.max_tap);
    TermRef& slot = out[f.off + sp.seq];
    slot = slot ? make(OpKind::Add, {slot, g}) : g;
  }
  return out;
}

}  // namespace reverse_loop

using namespace reverse_loop;

namespace {

std::vector<TermRef> pullback_of(TermRef scan, const std::vector<TermRef>& gouts,
                                 const std::vector<TermRef>& finals,
                                 const ScanPullbackOptions& options) {
  const auto& spec = scan->attrs().get<ops::ScanSpec>(AttrKey::Scan);
  if (std::ranges::any_of(spec.keep, [](std::int64_t k) { return k != 0; })) {
    // The pullback needs every state: the same scan keeping all steps, whose
    // last k rows are what this one keeps. A sit-sot kept for one step
    // passes its cotangent as the reverse loop's first carried value, where
    // that step is sure to exist (a loop that may run no step keeps no row).
    ops::ScanSpec all = spec;
    all.keep.clear();
    const std::vector<TermRef> operands(scan->operands().begin(), scan->operands().end());
    const TermRef full = make(OpKind::Scan, operands, {{AttrKey::Scan, all}});
    const std::size_t nmit = spec.mitsot_taps.size();
    std::vector<TermRef> gfull = gouts, last_states(static_cast<std::size_t>(spec.num_sitsot));
    for (std::size_t i = 0; i < gfull.size() && i < spec.keep.size(); ++i) {
      if (!gfull[i] || spec.keep[i] == 0) continue;
      if (spec.keep[i] == 1 && i >= nmit && i < nmit + last_states.size() &&
          gfull[i]->tensor_type().dims[0] == 1) {
        last_states[i - nmit] = make(OpKind::Index, {gfull[i], i64(0)});
        gfull[i] = nullptr;
      } else {
        gfull[i] = place(get(full, i), gfull[i], -spec.keep[i], 0);
      }
    }
    return pullback_of(full, gfull, last_states, options);
  }
  const Forward f(scan);
  if (options.checkpoint > 0)
    if (auto out = checkpointed_pullback(f, gouts, finals, options.checkpoint); !out.empty())
      return out;
  return taped_pullback(f, gouts, finals);
}

}  // namespace

std::vector<TermRef> scan_pullback(TermRef scan, const std::vector<TermRef>& gouts,
                                   const ScanPullbackOptions& options) {
  return pullback_of(scan, gouts, {}, options);
}

}  // namespace eqsat::rules