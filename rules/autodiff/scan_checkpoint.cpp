// Checkpointed loop pullbacks: the memory of a gradient through a long loop
// traded for one more forward pass (rules/README.md, "Memory of a gradient").
#include "rules/autodiff/reverse_loop.hpp"

namespace eqsat::rules::reverse_loop {

namespace {

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

// A sequence tap of the forward loop, its N rows as segments.
struct Tap {
  std::size_t seq;
  std::int64_t tap, max_tap;
  TermRef segs;
};

// One segment of the forward loop (k steps) from given states: the forward
// body with every sequence tap a sequence of its own.
struct Segment {
  Segment(const Forward& f, std::int64_t k, const std::vector<Tap>& taps)
      : f(f), k(k), taps(taps), spec(f.spec) {
    spec.sequence_taps.assign(taps.size(), ops::IntList{0});
    spec.has_n_steps = taps.empty();
  }

  // The segment loop over one segment's tap rows, from `states`.
  TermRef run(const std::vector<TermRef>& rows_of_taps, const std::vector<TermRef>& states,
              const std::vector<TermRef>& nons) const {
    std::vector<TermRef> operands{f.fn};
    if (taps.empty()) operands.push_back(i64(k));
    operands.insert(operands.end(), rows_of_taps.begin(), rows_of_taps.end());
    operands.insert(operands.end(), states.begin(), states.end());
    operands.insert(operands.end(), nons.begin(), nons.end());
    return make(OpKind::Scan, operands, {{AttrKey::Scan, spec}});
  }

  // The states a segment loop `inner` started at `starts` ends with: a
  // mit-sot's last depth rows, a sit-sot's last state.
  std::vector<TermRef> end_states(TermRef inner, const std::vector<TermRef>& starts) const {
    std::vector<TermRef> out;
    for (std::size_t j = 0; j < f.nmit; ++j)
      out.push_back(
          rows(make(OpKind::Concat, {starts[j], get(inner, j)}, {{AttrKey::Axis, std::int64_t{0}}}),
               k, 0));
    for (std::size_t j = 0; j < f.nsit; ++j) out.push_back(last(get(inner, f.nmit + j)));
    return out;
  }

  const Forward& f;
  std::int64_t k;
  const std::vector<Tap>& taps;
  ops::ScanSpec spec;  // the segment loop's
};

// The checkpoints: a loop over `segments` segments keeping only the states
// at the end of every segment.
TermRef checkpoint_loop(const Segment& segment, std::int64_t segments) {
  const Forward& f = segment.f;
  LoopBuilder c;
  std::vector<TermRef> cseq, cstate, cnon;
  for (const Tap& t : segment.taps) cseq.push_back(c.sequence(t.segs));
  for (std::size_t j = 0; j < f.nmit; ++j) cstate.push_back(c.sitsot(f.history(j)));
  for (std::size_t j = 0; j < f.nsit; ++j) cstate.push_back(c.sitsot(f.init(j)));
  for (std::size_t m = 0; m < f.nnon; ++m)
    cnon.push_back(c.nonsequence(f.non(m), f.params[f.params.size() - f.nnon + m]));
  c.sitsot_outs = segment.end_states(segment.run(cseq, cstate, cnon), cstate);
  return c.build(i64(segments));
}

// The cotangents of a segment loop `inner`'s outputs: the given ones
// (`rgout`) plus what later segments owe (`carry`, per state) the states
// this segment ends with.
std::vector<TermRef> segment_cotangents(const Forward& f, TermRef inner,
                                        const std::vector<TermRef>& rgout,
                                        const std::vector<TermRef>& carry) {
  std::vector<TermRef> inner_g(f.outs.size(), nullptr);
  for (std::size_t i = 0; i < f.outs.size(); ++i) {
    TermRef g = rgout[i];
    if (i < f.nmit + f.nsit && carry[i]) {
      const TermRef z = make(OpKind::ZerosLike, {get(inner, i)});
      const TermRef owed = i < f.nmit ? make(OpKind::IncSlice, {z, carry[i]},
                                             {{AttrKey::Axis, std::int64_t{0}},
                                              {AttrKey::Start, -(-f.spec.mitsot_taps[i].front())}})
                                      : make(OpKind::IncIndex, {z, i64(-1), carry[i]});
      g = g ? make(OpKind::Add, {g, owed}) : owed;
    }
    inner_g[i] = g;
  }
  return inner_g;
}

}  // namespace

// The pullback with checkpoints (gradient.hpp): a first loop over segments
// of k steps stores only the states at segment ends; the reverse loop runs
// over segments backwards, recomputes its segment from the stored state
// (the forward body, k steps, every state kept) and pulls the segment's
// cotangents back through that short loop (scan_pullback on it), carrying
// the states' and non-sequences' cotangents from segment to segment.
// Empty when the loop does not qualify (`:until`, steps not static, no
// segment length, shapes a reshape cannot express): the caller then keeps
// the whole tape.
// Past our ~80-line mark on purpose: the reverse loop's operand and output
// positions (carry, acc_of, tap_out, ioff) are assigned and read back in
// one place; the self-contained parts are Segment, checkpoint_loop and
// segment_cotangents.
std::vector<TermRef> checkpointed_pullback(const Forward& f, const std::vector<TermRef>& gouts,
                                           const std::vector<TermRef>& finals, std::int64_t want) {
  if (f.spec.until || f.steps == ops::kUnknownDim) return {};
  std::int64_t depth = 1;
  for (const auto& taps : f.spec.mitsot_taps) depth = std::max(depth, -taps.front());
  const std::int64_t k = segment_length(f.steps, want, depth);
  if (k == 0) return {};
  const std::int64_t segments = f.steps / k;
  const SequenceView view{f};
  const auto& spec = f.spec;
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

  const Segment segment(f, k, taps);
  const TermRef checkpoints = checkpoint_loop(segment, segments);

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
  std::vector<TermRef> carry(f.nmit + f.nsit, nullptr);  // per state a cotangent reaches
  const Reach reached = reach(f, gouts, finals);
  for (std::size_t j = 0; j < f.nmit + f.nsit; ++j)
    if (reached.live[j])
      carry[j] = b.sitsot(j < f.nmit ? make(OpKind::ZerosLike, {f.history(j)})
                                     : final_cotangent(f, finals, j - f.nmit));
  std::vector<std::size_t> acc_of;
  std::vector<TermRef> acc;
  const std::size_t non_first = f.params.size() - f.nnon;
  for (std::size_t m = 0; m < f.nnon; ++m)
    if (reached.params[non_first + m]) {
      acc_of.push_back(m);
      acc.push_back(b.sitsot(make(OpKind::ZerosLike, {f.non(m)})));
    }
  for (std::size_t m = 0; m < f.nnon; ++m)
    rnon.push_back(b.nonsequence(f.non(m), f.params[non_first + m]));

  const TermRef inner = segment.run(rseq, rstate, rnon);
  const std::vector<TermRef> inner_g = segment_cotangents(f, inner, rgout, carry);
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
    if (reached.params[q]) {
      tap_out.push_back(q);
      b.nitsot_outs.push_back(g_at(ioff + q, rseq[q]));
      b.keep.push_back(0);
    }
  if (b.sitsot_outs.empty() && b.nitsot_outs.empty()) return {};
  const TermRef rev = b.build(i64(segments));

  std::vector<TermRef> out(f.scan->arity(), nullptr);
  std::size_t r = 0;
  // Every segment runs (steps >= 2): a state the body never differentiates
  // passes no cotangent to its initial value.
  for (std::size_t j = 0; j < f.nmit + f.nsit; ++j)
    if (carry[j]) {
      const TermRef g = last(get(rev, r++));
      if (reached.read[j]) out[f.off + f.nseq + j] = g;
    }
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

}  // namespace eqsat::rules::reverse_loop
