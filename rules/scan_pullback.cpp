// The pullback of a scan: a reverse scan (gradient.hpp says what it reads
// and carries). Loops whose number of steps is only known when they run
// (`:until`, or sequences of unknown length) run the reverse loop over the
// steps the forward loop actually ran: `(dim (get 0 fwd) :axis 0)`.
#include "vjp.hpp"

#include "ops/pullback.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace eqsat::rules {

using ops::AttrKey;
using ops::OpKind;
using ops::Term;
using ops::TermRef;

namespace {

TermRef make(OpKind k, std::vector<TermRef> xs, ops::Attrs attrs = {}) {
  return Term::make(k, std::move(attrs), std::move(xs));
}
TermRef i64(std::int64_t v) {
  return Term::scalar(ops::DType::I64, static_cast<double>(v));
}
TermRef get(TermRef tuple, std::size_t i) {
  return make(OpKind::Get, {tuple}, {{AttrKey::Index, static_cast<std::int64_t>(i)}});
}
TermRef flip0(TermRef t) {
  return make(OpKind::Flip, {t}, {{AttrKey::Axis, ops::IntList{0}}});
}
TermRef last(TermRef t) {
  return make(OpKind::Index, {t, i64(-1)});
}
std::int64_t rows_of(TermRef t) {
  return t->tensor_type().dims[0];
}

// x[start : stop] along axis 0 (stop 0: to the end); x itself when that
// covers all of x, so no whole-array slice is ever built.
TermRef rows(TermRef x, std::int64_t start, std::int64_t stop) {
  const std::int64_t n = rows_of(x);
  if (start == 0 && (stop == 0 || (n != ops::kUnknownDim && stop == n))) return x;
  ops::Attrs a{{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, start}};
  if (stop != 0) a.set(AttrKey::Stop, stop);
  return make(OpKind::Slice, {x}, std::move(a));
}

// Zeros of x's type: a `zeros` when the type is static, so the value of x
// (a loop's whole history, say) is not needed for it.
TermRef zeros_of(TermRef x) {
  const ops::TensorType& t = x->tensor_type();
  if (!t.is_static()) return make(OpKind::ZerosLike, {x});
  return make(OpKind::Zeros, {}, {{AttrKey::Shape, t.dims}, {AttrKey::Dtype, t.dtype}});
}

// zeros_like(x) with `part` added at rows [start, stop) (stop 0: to the
// end); `part` itself when it covers all of x.
TermRef place(TermRef x, TermRef part, std::int64_t start, std::int64_t stop) {
  if (rows(x, start, stop) == x) return part;
  ops::Attrs a{{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, start}};
  if (stop != 0) a.set(AttrKey::Stop, stop);
  return make(OpKind::IncSlice, {zeros_of(x), part}, std::move(a));
}

// The first `count` rows of x (count an i64 term known when the graph runs):
// a copying loop, the one way to cut an array at a run-time length.
TermRef first_rows(TermRef x, TermRef count) {
  ops::TensorType row = x->tensor_type();
  row.dims.erase(row.dims.begin());
  ops::ScanSpec spec;
  spec.has_n_steps = true;
  spec.sequence_taps = {ops::IntList{0}};
  spec.num_nitsot = 1;
  const TermRef body = Term::fn({row}, {Term::nominal(0, row)});
  return get(make(OpKind::Scan, {body, count, x}, {{AttrKey::Scan, spec}}), 0);
}

// Replaces the nominals of one body level by `args`.
class Instantiate {
 public:
  explicit Instantiate(std::vector<TermRef> args) : args_(std::move(args)) {}
  TermRef operator()(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out = t;
    if (t->kind() == OpKind::Nominal) {
      out = args_.at(static_cast<std::size_t>(t->attrs().get<std::int64_t>(AttrKey::Slot)));
    } else if (t->kind() != OpKind::Fn && !t->free_nominals().empty()) {
      std::vector<TermRef> xs;
      for (TermRef o : t->operands()) xs.push_back((*this)(o));
      out = Term::make(t->kind(), t->attrs(), std::move(xs));
    }
    memo_.emplace(t, out);
    return out;
  }

 private:
  std::vector<TermRef> args_;
  std::unordered_map<TermRef, TermRef> memo_;
};

// A loop under construction: its slots (sequences, sit-sots, nit-sot
// outputs, non-sequences), each sequence or non-sequence dropped by
// `build` when the body does not read it.
struct LoopBuilder {
  std::vector<ops::TensorType> params;
  std::vector<TermRef> seqs, inits, nons;
  std::vector<std::size_t> seq_param, init_param, non_param;  // slot -> parameter
  std::vector<TermRef> sitsot_outs, nitsot_outs;
  ops::IntList keep;  // per sit-sot then nit-sot output, 0 = all

  TermRef param(const ops::TensorType& t) {
    const TermRef n = Term::nominal(static_cast<std::int64_t>(params.size()), t);
    params.push_back(t);
    return n;
  }
  TermRef sequence(TermRef outer) {
    seqs.push_back(outer);
    ops::TensorType t = outer->tensor_type();
    t.dims.erase(t.dims.begin());
    seq_param.push_back(params.size());
    return param(t);
  }
  TermRef sitsot(TermRef init) {
    inits.push_back(init);
    init_param.push_back(params.size());
    return param(init->tensor_type());
  }
  TermRef nonsequence(TermRef outer, const ops::TensorType& t) {
    nons.push_back(outer);
    non_param.push_back(params.size());
    return param(t);
  }

  // The scan; `steps` gives :n-steps when no sequence is left. Parameters
  // are renumbered in slot order: sequences, sit-sots, non-sequences.
  TermRef build(TermRef steps) const {
    std::vector<bool> used(params.size(), false);
    auto mark = [&](TermRef t) {
      for (auto s : t->free_nominals()) used[static_cast<std::size_t>(s)] = true;
    };
    for (TermRef t : sitsot_outs) mark(t);
    for (TermRef t : nitsot_outs) mark(t);
    std::vector<TermRef> args(params.size(), nullptr);
    std::vector<ops::TensorType> kept;
    auto renumber = [&](std::size_t p) {
      args[p] = Term::nominal(static_cast<std::int64_t>(kept.size()), params[p]);
      kept.push_back(params[p]);
    };
    ops::ScanSpec spec;
    std::vector<TermRef> operands{nullptr};
    for (std::size_t i = 0; i < seqs.size(); ++i)
      if (used[seq_param[i]]) {
        renumber(seq_param[i]);
        spec.sequence_taps.push_back(ops::IntList{0});
        operands.push_back(seqs[i]);
      }
    if (spec.sequence_taps.empty()) {
      spec.has_n_steps = true;
      operands.insert(operands.begin() + 1, steps);
    }
    for (std::size_t j = 0; j < inits.size(); ++j) {
      renumber(init_param[j]);
      operands.push_back(inits[j]);
    }
    for (std::size_t m = 0; m < nons.size(); ++m)
      if (used[non_param[m]]) {
        renumber(non_param[m]);
        operands.push_back(nons[m]);
      }
    Instantiate inst(args);
    std::vector<TermRef> outs;
    for (TermRef t : sitsot_outs) outs.push_back(inst(t));
    for (TermRef t : nitsot_outs) outs.push_back(inst(t));
    operands[0] = Term::fn(kept, outs);
    spec.num_sitsot = static_cast<std::int64_t>(sitsot_outs.size());
    spec.num_nitsot = static_cast<std::int64_t>(nitsot_outs.size());
    spec.num_nonsequences = static_cast<std::int64_t>(operands.size()) - 1 - spec.has_n_steps -
                            static_cast<std::int64_t>(spec.sequence_taps.size()) - spec.num_sitsot;
    spec.keep = keep;
    return make(OpKind::Scan, operands, {{AttrKey::Scan, spec}});
  }
};

// The forward loop's layout, read once.
struct Forward {
  TermRef scan, fn;
  ops::ScanSpec spec;
  std::vector<ops::TensorType> params, outs;
  std::size_t off = 0, nseq = 0, nmit = 0, nsit = 0, nnit = 0, nnon = 0;
  std::int64_t steps = ops::kUnknownDim;  // static number of steps
  TermRef steps_term = nullptr;           // the number of steps, when the loop runs

  explicit Forward(TermRef s) : scan(s), fn(s->operand(0)) {
    spec = s->attrs().get<ops::ScanSpec>(AttrKey::Scan);
    params = fn->attrs().get<std::vector<ops::TensorType>>(AttrKey::Params);
    outs = std::get<ops::TupleType>(s->type()).elements;
    off = spec.has_n_steps ? 2 : 1;
    nseq = spec.sequence_taps.size();
    nmit = spec.mitsot_taps.size();
    nsit = static_cast<std::size_t>(spec.num_sitsot);
    nnit = static_cast<std::size_t>(spec.num_nitsot);
    nnon = static_cast<std::size_t>(spec.num_nonsequences);
    steps = outs[0].dims[0];
    steps_term = steps != ops::kUnknownDim
                     ? i64(steps)
                     : make(OpKind::Dim, {get(s, 0)}, {{AttrKey::Axis, std::int64_t{0}}});
  }
  TermRef seq(std::size_t i) const { return scan->operand(off + i); }
  TermRef history(std::size_t j) const { return scan->operand(off + nseq + j); }
  TermRef init(std::size_t j) const { return scan->operand(off + nseq + nmit + j); }
  TermRef non(std::size_t m) const { return scan->operand(off + nseq + nmit + nsit + m); }
  bool float_out(std::size_t i) const { return ops::is_float(outs[i].dtype); }
  ops::TensorType step_type(std::size_t i) const {
    ops::TensorType t = outs[i];
    t.dims.erase(t.dims.begin());
    return t;
  }
};

// How a sequence read at tap k over all steps is taken from the sequence
// x, and how its cotangent goes back: rows [k, k + steps) of x.
struct SequenceView {
  const Forward& f;
  // The steps are the sequence's own length (one sequence, no :n-steps, no
  // :until): rows [k, len - max_tap + k), static offsets.
  bool by_length() const { return !f.spec.has_n_steps && f.nseq == 1 && !f.spec.until; }

  TermRef read(TermRef x, std::int64_t k, std::int64_t max_tap) const {
    if (by_length()) return rows(x, k, k - max_tap);
    if (f.steps != ops::kUnknownDim) return rows(x, k, k + f.steps);
    return first_rows(rows(x, k, 0), f.steps_term);
  }
  TermRef write(TermRef x, TermRef part, std::int64_t k, std::int64_t max_tap) const {
    if (by_length()) return place(x, part, k, k - max_tap);
    if (f.steps != ops::kUnknownDim) return place(x, part, k, k + f.steps);
    // Rows [k, k + steps) hold `part`: zeros before, `part`, then enough
    // zeros, cut at x's length.
    std::vector<TermRef> pieces;
    const TermRef z = zeros_of(x);
    if (k > 0) pieces.push_back(rows(z, 0, k));
    pieces.push_back(part);
    pieces.push_back(z);
    const TermRef padded = make(OpKind::Concat, pieces, {{AttrKey::Axis, std::int64_t{0}}});
    const std::int64_t n = rows_of(x);
    if (n != ops::kUnknownDim) return rows(padded, 0, n);
    return first_rows(padded, make(OpKind::Dim, {x}, {{AttrKey::Axis, std::int64_t{0}}}));
  }
};

std::vector<TermRef> reverse_scan(const Forward& f, const std::vector<TermRef>& gouts) {
  const ops::ScanSpec& spec = f.spec;
  const SequenceView view{f};
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
      if (ops::is_float(f.params[p].dtype)) float_wrt_params.push_back(p);
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
      if (f.float_out(j)) float_wrt_params.push_back(p);
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
    if (f.float_out(f.nmit + j)) float_wrt_params.push_back(p);
  }
  // The output cotangents, flipped (only those given).
  std::vector<TermRef> gout_param(f.outs.size(), nullptr);
  for (std::size_t i = 0; i < f.outs.size(); ++i)
    if (cot(i) && f.float_out(i)) gout_param[i] = b.sequence(flip0(cot(i)));
  // Carried: per float sit-sot its cotangent; per float mit-sot the
  // cotangents owed by later steps' reads to the current state and the
  // depth - 1 before it (row d: state t - d); per float non-sequence the
  // sum of its cotangents.
  std::vector<TermRef> carry(f.nsit, nullptr), pending(f.nmit, nullptr);
  for (std::size_t j = 0; j < f.nsit; ++j)
    if (f.float_out(f.nmit + j)) carry[j] = b.sitsot(make(OpKind::ZerosLike, {f.init(j)}));
  for (std::size_t j = 0; j < f.nmit; ++j)
    if (f.float_out(j)) pending[j] = b.sitsot(make(OpKind::ZerosLike, {f.history(j)}));
  const std::size_t non_first = p;
  std::vector<std::size_t> acc_of;  // accumulated non-sequences
  std::vector<TermRef> acc;
  for (std::size_t m = 0; m < f.nnon; ++m)
    if (ops::is_float(f.params[non_first + m].dtype)) {
      acc_of.push_back(m);
      acc.push_back(b.sitsot(make(OpKind::ZerosLike, {f.non(m)})));
      float_wrt_params.push_back(non_first + m);
    }
  for (std::size_t m = 0; m < f.nnon; ++m)
    args[non_first + m] = b.nonsequence(f.non(m), f.params[non_first + m]);

  // The body on the reverse loop's parameters, and its pullback at one step.
  Instantiate inst(args);
  const TermRef zero = i64(0);
  std::vector<TermRef> body, seeds;
  for (std::size_t i = 0; i < f.outs.size(); ++i) {
    body.push_back(inst(f.fn->operand(i)));
    TermRef s = gout_param[i];
    auto plus = [&](TermRef t) { s = s ? make(OpKind::Add, {s, t}) : t; };
    if (i < f.nmit && pending[i]) plus(make(OpKind::Index, {pending[i], zero}));
    if (i >= f.nmit && i < f.nmit + f.nsit && carry[i - f.nmit]) plus(carry[i - f.nmit]);
    seeds.push_back(s);
  }
  std::vector<TermRef> wrts;
  for (std::size_t q : float_wrt_params) wrts.push_back(args[q]);
  std::vector<TermRef> gw = vjp(body, seeds, wrts);
  std::unordered_map<std::size_t, TermRef> g_of;  // forward parameter -> its cotangent
  for (std::size_t i = 0; i < wrts.size(); ++i)
    g_of[float_wrt_params[i]] = gw[i] ? gw[i] : make(OpKind::ZerosLike, {wrts[i]});

  for (std::size_t j = 0; j < f.nsit; ++j)
    if (carry[j]) b.sitsot_outs.push_back(g_of.at(sit_first + j));
  for (std::size_t j = 0; j < f.nmit; ++j) {
    if (!pending[j]) continue;
    // Shift by one state, then add what this step's reads owe: tap k is
    // state t + k, row -1 - k of the next step's pending.
    const auto depth = static_cast<std::size_t>(-spec.mitsot_taps[j].front());
    const TermRef row0 = make(OpKind::Index, {pending[j], zero});
    std::vector<TermRef> owed(depth, nullptr);
    for (std::size_t r = 0; r < spec.mitsot_taps[j].size(); ++r)
      owed[static_cast<std::size_t>(-1 - spec.mitsot_taps[j][r])] = g_of.at(mit_first[j] + r);
    for (auto& r : owed)
      if (!r) r = make(OpKind::ZerosLike, {row0});
    const TermRef now = make(OpKind::Stack, owed, {{AttrKey::Axis, std::int64_t{0}}});
    if (depth == 1) {
      b.sitsot_outs.push_back(now);
      continue;
    }
    const TermRef shifted =
        make(OpKind::Concat,
             {rows(pending[j], 1, 0), make(OpKind::ExpandDims, {make(OpKind::ZerosLike, {row0})},
                                           {{AttrKey::Axis, std::int64_t{0}}})},
             {{AttrKey::Axis, std::int64_t{0}}});
    b.sitsot_outs.push_back(make(OpKind::Add, {shifted, now}));
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
  for (std::size_t j = 0; j < f.nsit; ++j)
    if (carry[j]) out[f.off + f.nseq + f.nmit + j] = last(get(rev, r++));
  for (std::size_t j = 0; j < f.nmit; ++j)
    if (pending[j]) out[f.off + f.nseq + j] = flip0(last(get(rev, r++)));
  for (std::size_t a = 0; a < acc.size(); ++a)
    out[f.off + f.nseq + f.nmit + f.nsit + acc_of[a]] = last(get(rev, r++));
  for (std::size_t q : seq_out) {
    const auto& sp = seq_params[q];
    const TermRef x = f.seq(sp.seq);
    const TermRef g = view.write(x, flip0(get(rev, r++)), sp.tap, sp.max_tap);
    TermRef& slot = out[f.off + sp.seq];
    slot = slot ? make(OpKind::Add, {slot, g}) : g;
  }
  return out;
}

// `t` (N = segments * k rows) as segments of k rows: shape (segments, k,
// rest...); nullptr when the rest has more than one unknown dimension.
TermRef as_segments(TermRef t, std::int64_t segments, std::int64_t k) {
  ops::IntList shape{segments, k};
  int unknown = 0;
  for (std::size_t d = 1; d < t->tensor_type().dims.size(); ++d) {
    const std::int64_t n = t->tensor_type().dims[d];
    unknown += n == ops::kUnknownDim;
    shape.push_back(n == ops::kUnknownDim ? -1 : n);
  }
  if (unknown > 1) return nullptr;
  return make(OpKind::Reshape, {t}, {{AttrKey::Shape, shape}});
}

// Segments of k rows back to N rows.
TermRef from_segments(TermRef t, std::int64_t n) {
  ops::IntList shape{n};
  for (std::size_t d = 2; d < t->tensor_type().dims.size(); ++d) {
    const std::int64_t m = t->tensor_type().dims[d];
    shape.push_back(m == ops::kUnknownDim ? -1 : m);
  }
  return make(OpKind::Reshape, {t}, {{AttrKey::Shape, shape}});
}

// The steps per segment for checkpoints every `want` steps over `steps`:
// the largest divisor of steps not above want, at least `min` (a mit-sot's
// depth); 0 when there is none or it leaves a single segment.
std::int64_t segment_length(std::int64_t steps, std::int64_t want, std::int64_t min) {
  for (std::int64_t k = std::min(want, steps - 1); k >= std::max<std::int64_t>(min, 1); --k)
    if (steps % k == 0) return k;
  return 0;
}

// The pullback with checkpoints (gradient.hpp): a first loop over segments
// of k steps stores only the states at segment ends; the reverse loop runs
// over segments backwards, recomputes its segment from the stored state
// (the forward body, k steps, every state kept) and pulls the segment's
// cotangents back through that short loop (scan_pullback on it), carrying
// the states' and non-sequences' cotangents from segment to segment.
// Empty when the loop does not qualify (`:until`, steps not static, no
// segment length, shapes a reshape cannot express): the caller then keeps
// the whole tape.
std::vector<TermRef> checkpointed(const Forward& f, const std::vector<TermRef>& gouts,
                                  std::int64_t want) {
  if (f.spec.until || f.steps == ops::kUnknownDim) return {};
  std::int64_t depth = 1;
  for (const auto& taps : f.spec.mitsot_taps) depth = std::max(depth, -taps.front());
  const std::int64_t k = segment_length(f.steps, want, depth);
  if (k == 0) return {};
  const std::int64_t segments = f.steps / k;
  const SequenceView view{f};
  const auto& spec = f.spec;
  // Per sequence tap, its N rows as segments.
  struct Tap {
    std::size_t seq;
    std::int64_t tap, max_tap;
    TermRef segs;
  };
  std::vector<Tap> taps;
  for (std::size_t i = 0; i < f.nseq; ++i)
    for (std::int64_t t : spec.sequence_taps[i]) {
      const std::int64_t max_tap = spec.sequence_taps[i].back();
      const TermRef segs = as_segments(view.read(f.seq(i), t, max_tap), segments, k);
      if (!segs) return {};
      taps.push_back({i, t, max_tap, segs});
    }
  std::vector<TermRef> gsegs(f.outs.size(), nullptr);
  for (std::size_t i = 0; i < f.outs.size(); ++i)
    if (i < gouts.size() && gouts[i] && f.float_out(i))
      if (!(gsegs[i] = as_segments(gouts[i], segments, k))) return {};

  // One segment of the forward loop from given states: the forward body
  // with every sequence tap a sequence of its own.
  ops::ScanSpec seg_spec = spec;
  seg_spec.sequence_taps.assign(taps.size(), ops::IntList{0});
  seg_spec.has_n_steps = taps.empty();
  auto segment = [&](const std::vector<TermRef>& rows_of_taps, const std::vector<TermRef>& states,
                     const std::vector<TermRef>& nons) {
    std::vector<TermRef> operands{f.fn};
    if (taps.empty()) operands.push_back(i64(k));
    operands.insert(operands.end(), rows_of_taps.begin(), rows_of_taps.end());
    operands.insert(operands.end(), states.begin(), states.end());
    operands.insert(operands.end(), nons.begin(), nons.end());
    return make(OpKind::Scan, operands, {{AttrKey::Scan, seg_spec}});
  };
  auto end_states = [&](TermRef inner, const std::vector<TermRef>& starts) {
    std::vector<TermRef> out;
    for (std::size_t j = 0; j < f.nmit; ++j)
      out.push_back(
          rows(make(OpKind::Concat, {starts[j], get(inner, j)}, {{AttrKey::Axis, std::int64_t{0}}}),
               k, 0));
    for (std::size_t j = 0; j < f.nsit; ++j) out.push_back(last(get(inner, f.nmit + j)));
    return out;
  };

  // The checkpoints: the states at the end of every segment.
  LoopBuilder c;
  std::vector<TermRef> cseq, cstate, cnon;
  for (const Tap& t : taps) cseq.push_back(c.sequence(t.segs));
  for (std::size_t j = 0; j < f.nmit; ++j) cstate.push_back(c.sitsot(f.history(j)));
  for (std::size_t j = 0; j < f.nsit; ++j) cstate.push_back(c.sitsot(f.init(j)));
  for (std::size_t m = 0; m < f.nnon; ++m)
    cnon.push_back(c.nonsequence(f.non(m), f.params[f.params.size() - f.nnon + m]));
  c.sitsot_outs = end_states(segment(cseq, cstate, cnon), cstate);
  const TermRef checkpoints = c.build(i64(segments));

  // The reverse loop over segments.
  LoopBuilder b;
  std::vector<TermRef> rseq, rstate, rnon, rgout(f.outs.size(), nullptr);
  for (std::size_t j = 0; j < f.nmit + f.nsit; ++j) {
    const TermRef first = j < f.nmit ? f.history(j) : f.init(j - f.nmit);
    const TermRef starts =
        make(OpKind::Concat,
             {make(OpKind::ExpandDims, {first}, {{AttrKey::Axis, std::int64_t{0}}}),
              rows(get(checkpoints, j), 0, -1)},
             {{AttrKey::Axis, std::int64_t{0}}});
    rstate.push_back(b.sequence(flip0(starts)));
  }
  for (const Tap& t : taps) rseq.push_back(b.sequence(flip0(t.segs)));
  for (std::size_t i = 0; i < f.outs.size(); ++i)
    if (gsegs[i]) rgout[i] = b.sequence(flip0(gsegs[i]));
  std::vector<TermRef> carry(f.nmit + f.nsit, nullptr);  // per state, when float
  for (std::size_t j = 0; j < f.nmit + f.nsit; ++j)
    if (f.float_out(j))
      carry[j] =
          b.sitsot(make(OpKind::ZerosLike, {j < f.nmit ? f.history(j) : f.init(j - f.nmit)}));
  std::vector<std::size_t> acc_of;
  std::vector<TermRef> acc;
  const std::size_t non_first = f.params.size() - f.nnon;
  for (std::size_t m = 0; m < f.nnon; ++m)
    if (ops::is_float(f.params[non_first + m].dtype)) {
      acc_of.push_back(m);
      acc.push_back(b.sitsot(make(OpKind::ZerosLike, {f.non(m)})));
    }
  for (std::size_t m = 0; m < f.nnon; ++m)
    rnon.push_back(b.nonsequence(f.non(m), f.params[non_first + m]));

  const TermRef inner = segment(rseq, rstate, rnon);
  std::vector<TermRef> inner_g(f.outs.size(), nullptr);
  for (std::size_t i = 0; i < f.outs.size(); ++i) {
    TermRef g = rgout[i];
    if (i < f.nmit + f.nsit && carry[i]) {
      // What later segments owe the states this segment ends with.
      const TermRef z = make(OpKind::ZerosLike, {get(inner, i)});
      const TermRef owed = i < f.nmit ? make(OpKind::IncSlice, {z, carry[i]},
                                             {{AttrKey::Axis, std::int64_t{0}},
                                              {AttrKey::Start, -(-spec.mitsot_taps[i].front())}})
                                      : make(OpKind::IncIndex, {z, i64(-1), carry[i]});
      g = g ? make(OpKind::Add, {g, owed}) : owed;
    }
    inner_g[i] = g;
  }
  const std::vector<TermRef> gi = scan_pullback(inner, inner_g, {});
  auto g_at = [&](std::size_t operand, TermRef like) {
    return operand < gi.size() && gi[operand] ? gi[operand] : make(OpKind::ZerosLike, {like});
  };
  const std::size_t ioff = taps.empty() ? 2 : 1;
  for (std::size_t j = 0; j < f.nmit + f.nsit; ++j)
    if (carry[j]) b.sitsot_outs.push_back(g_at(ioff + taps.size() + j, rstate[j]));
  for (std::size_t a = 0; a < acc.size(); ++a)
    b.sitsot_outs.push_back(
        make(OpKind::Add,
             {acc[a], g_at(ioff + taps.size() + f.nmit + f.nsit + acc_of[a], rnon[acc_of[a]])}));
  b.keep.assign(b.sitsot_outs.size(), 1);
  std::vector<std::size_t> tap_out;
  for (std::size_t q = 0; q < taps.size(); ++q)
    if (ops::is_float(f.params[q].dtype)) {
      tap_out.push_back(q);
      b.nitsot_outs.push_back(g_at(ioff + q, rseq[q]));
      b.keep.push_back(0);
    }
  if (b.sitsot_outs.empty() && b.nitsot_outs.empty()) return {};
  const TermRef rev = b.build(i64(segments));

  std::vector<TermRef> out(f.scan->arity(), nullptr);
  std::size_t r = 0;
  for (std::size_t j = 0; j < f.nmit + f.nsit; ++j)
    if (carry[j]) out[f.off + f.nseq + j] = last(get(rev, r++));
  for (std::size_t a = 0; a < acc.size(); ++a)
    out[f.off + f.nseq + f.nmit + f.nsit + acc_of[a]] = last(get(rev, r++));
  for (std::size_t q : tap_out) {
    const Tap& t = taps[q];
    const TermRef part = from_segments(flip0(get(rev, r++)), f.steps);
    const TermRef g = view.write(f.seq(t.seq), part, t.tap, t.max_tap);
    TermRef& slot = out[f.off + t.seq];
    slot = slot ? make(OpKind::Add, {slot, g}) : g;
  }
  return out;
}

}  // namespace

std::vector<TermRef> scan_pullback(TermRef scan, const std::vector<TermRef>& gouts,
                                   const ScanPullbackOptions& options) {
  const auto& spec = scan->attrs().get<ops::ScanSpec>(AttrKey::Scan);
  if (std::ranges::any_of(spec.keep, [](std::int64_t k) { return k != 0; })) {
    // The pullback needs every state: the same scan keeping all steps, whose
    // last k rows are what this one keeps.
    ops::ScanSpec all = spec;
    all.keep.clear();
    const std::vector<TermRef> operands(scan->operands().begin(), scan->operands().end());
    const TermRef full = make(OpKind::Scan, operands, {{AttrKey::Scan, all}});
    std::vector<TermRef> gfull = gouts;
    for (std::size_t i = 0; i < gfull.size() && i < spec.keep.size(); ++i)
      if (gfull[i] && spec.keep[i] != 0) gfull[i] = place(get(full, i), gfull[i], -spec.keep[i], 0);
    return scan_pullback(full, gfull, options);
  }
  const Forward f(scan);
  if (options.checkpoint > 0)
    if (auto out = checkpointed(f, gouts, options.checkpoint); !out.empty()) return out;
  return reverse_scan(f, gouts);
}

}  // namespace eqsat::rules
