// The building blocks of reverse loops (scan_pullback.cpp and
// scan_checkpoint.cpp): row views of a loop's arrays that never slice a
// whole array, a loop builder that keeps only the slots its body reads, and
// the forward loop's layout. Internal to rules/.
#pragma once

#include "rules/autodiff/vjp.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace eqsat::rules::reverse_loop {

using ops::AttrKey;
using ops::OpKind;
using ops::Term;
using ops::TermRef;

inline TermRef make(OpKind k, std::vector<TermRef> xs, ops::Attrs attrs = {}) {
  return Term::make(k, std::move(attrs), std::move(xs));
}
inline TermRef i64(std::int64_t v) {
  return Term::scalar(ops::DType::I64, static_cast<double>(v));
}
inline TermRef get(TermRef tuple, std::size_t i) {
  return make(OpKind::Get, {tuple}, {{AttrKey::Index, static_cast<std::int64_t>(i)}});
}
inline TermRef flip0(TermRef t) {
  return make(OpKind::Flip, {t}, {{AttrKey::Axis, ops::IntList{0}}});
}
inline TermRef last(TermRef t) {
  return make(OpKind::Index, {t, i64(-1)});
}
inline std::int64_t rows_of(TermRef t) {
  return t->tensor_type().dims[0];
}

// x[start : stop] along axis 0 (stop 0: to the end); x itself when that
// covers all of x, so no whole-array slice is ever built.
inline TermRef rows(TermRef x, std::int64_t start, std::int64_t stop) {
  const std::int64_t n = rows_of(x);
  if (start == 0 && (stop == 0 || (n != ops::kUnknownDim && stop == n))) return x;
  ops::Attrs a{{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, start}};
  if (stop != 0) a.set(AttrKey::Stop, stop);
  return make(OpKind::Slice, {x}, std::move(a));
}

// Zeros of x's type: a `zeros` when the type is static, so the value of x
// (a loop's whole history, say) is not needed for it.
inline TermRef zeros_of(TermRef x) {
  const ops::TensorType& t = x->tensor_type();
  if (!t.is_static()) return make(OpKind::ZerosLike, {x});
  return make(OpKind::Zeros, {}, {{AttrKey::Shape, t.dims}, {AttrKey::Dtype, t.dtype}});
}

// zeros_like(x) with `part` added at rows [start, stop) (stop 0: to the
// end); `part` itself when it covers all of x.
inline TermRef place(TermRef x, TermRef part, std::int64_t start, std::int64_t stop) {
  if (rows(x, start, stop) == x) return part;
  ops::Attrs a{{AttrKey::Axis, std::int64_t{0}}, {AttrKey::Start, start}};
  if (stop != 0) a.set(AttrKey::Stop, stop);
  return make(OpKind::IncSlice, {zeros_of(x), part}, std::move(a));
}

// The first `count` rows of x (count an i64 term known when the graph runs):
// a copying loop, the one way to cut an array at a run-time length.
inline TermRef first_rows(TermRef x, TermRef count) {
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
    auto instantiate = [&](TermRef u) {
      if (memo_.contains(u)) return;
      TermRef out = u;
      if (u->kind() == OpKind::Nominal) {
        out = args_.at(static_cast<std::size_t>(u->attrs().get<std::int64_t>(AttrKey::Slot)));
      } else if (u->kind() != OpKind::Fn && !u->free_nominals().empty()) {
        std::vector<TermRef> xs;
        for (TermRef o : u->operands()) xs.push_back(memo_.at(o));
        out = Term::make(u->kind(), u->attrs(), std::move(xs));
      }
      memo_.emplace(u, out);
    };
    ops::for_each_post_order(t, ops::Bodies::Skip, instantiate, [&](TermRef u) {
      return !memo_.contains(u) && !u->free_nominals().empty();
    });
    return memo_.at(t);
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

// Where a loop's cotangents are not structurally zero (JAX's symbolic
// zeros): `params[p]` when the body's pullback, seeded at the outputs that
// have a cotangent, gives body parameter p one (vjp's nullptr is the
// structural zero: no path, or only through casts to integers or bools,
// comparisons, floor/ceil/round/sign, integer values); `live[s]` for the
// states (mit-sots then sit-sots, by output index) the reverse loop
// carries: those whose parameters get a cotangent, found to a fixed point
// (a carried state seeds its own output), and a sit-sot whose last state
// has a cotangent of its own (`finals`); `read[s]` for the states one of
// whose parameters gets a cotangent (else the state owes its initial value
// nothing, unless the loop ran no step). Every other state, sequence tap
// and non-sequence gets no pullback term at all, so a zero cotangent is
// never multiplied by a NaN or inf derivative (a state gone NaN that no
// cost reads, `pow x 0.5` at x < 0 under a cast to bool).
struct Reach {
  std::vector<bool> params, live, read;
};
Reach reach(const Forward& f, const std::vector<TermRef>& gouts,
            const std::vector<TermRef>& finals);

// The pullback of `f` through a reverse loop over its stored history.
// `finals` (per sit-sot, nullptr or missing: zeros) are cotangents of the
// last states given apart from `gouts` (an output kept with `:keep 1`), so
// that no cotangent array of every step has to be built for them.
std::vector<TermRef> taped_pullback(const Forward& f, const std::vector<TermRef>& gouts,
                                    const std::vector<TermRef>& finals);

// The pullback of `f` recomputing segments of about `want` steps
// (gradient.hpp); empty when the loop does not qualify.
std::vector<TermRef> checkpointed_pullback(const Forward& f, const std::vector<TermRef>& gouts,
                                           const std::vector<TermRef>& finals, std::int64_t want);

// The initial carried cotangent of sit-sot j: finals[j], or zeros.
inline TermRef final_cotangent(const Forward& f, const std::vector<TermRef>& finals,
                               std::size_t j) {
  return j < finals.size() && finals[j] ? finals[j] : make(OpKind::ZerosLike, {f.init(j)});
}

}  // namespace eqsat::rules::reverse_loop
