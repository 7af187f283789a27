#include "gradient.hpp"

#include "ops/pullback.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace eqsat::rules {

using ops::OpKind;
using ops::Term;
using ops::TermRef;

namespace {

// Replaces the nominals of one body level by `args`.
class Instantiate {
 public:
  explicit Instantiate(std::span<const TermRef> args) : args_(args) {}
  TermRef operator()(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out = t;
    if (t->kind() == OpKind::Nominal) {
      const auto slot = t->attrs().get<std::int64_t>(ops::AttrKey::Slot);
      if (slot < 0 || slot >= static_cast<std::int64_t>(args_.size()))
        throw ops::PullbackError("grad: a call has fewer arguments than its body reads");
      out = args_[static_cast<std::size_t>(slot)];
    } else if (t->kind() != OpKind::Fn && !t->free_nominals().empty()) {
      std::vector<TermRef> xs;
      for (TermRef o : t->operands()) xs.push_back((*this)(o));
      out = Term::make(t->kind(), t->attrs(), std::move(xs));
    }
    memo_.emplace(t, out);
    return out;
  }

 private:
  std::span<const TermRef> args_;
  std::unordered_map<TermRef, TermRef> memo_;
};

class InlineCalls {
 public:
  TermRef operator()(TermRef t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out = t;
    if (t->kind() != OpKind::Fn && t->arity() > 0) {
      std::vector<TermRef> xs;
      bool changed = false;
      for (TermRef o : t->operands()) {
        xs.push_back((*this)(o));
        changed |= xs.back() != o;
      }
      if (changed) out = Term::make(t->kind(), t->attrs(), xs);
      if (out->kind() == OpKind::Call && out->operand(0)->arity() == 1 && !out->is_tuple())
        out = (*this)(body_output(out, 0));
      else if (out->kind() == OpKind::Get && out->operand(0)->kind() == OpKind::Call)
        out = (*this)(
            body_output(out->operand(0), out->attrs().get<std::int64_t>(ops::AttrKey::Index)));
    }
    memo_.emplace(t, out);
    return out;
  }

 private:
  static TermRef body_output(TermRef call, std::int64_t index) {
    TermRef fn = call->operand(0);
    std::vector<TermRef> args(call->operands().begin() + 1, call->operands().end());
    return Instantiate(args)(fn->operand(static_cast<std::size_t>(index)));
  }
  std::unordered_map<TermRef, TermRef> memo_;
};

}  // namespace

TermRef inline_calls_in_term(TermRef t) {
  return InlineCalls()(t);
}

namespace {

std::vector<TermRef> vjp(std::span<const TermRef> outputs, std::span<const TermRef> seeds,
                         std::span<const TermRef> wrts);

TermRef make(OpKind k, std::vector<TermRef> xs, ops::Attrs attrs = {}) {
  return Term::make(k, std::move(attrs), std::move(xs));
}

[[noreturn]] void scan_unsupported(const std::string& why) {
  throw ops::PullbackError("grad: differentiating through scan is not supported yet (" + why + ")");
}

// The pullback of a scan: a reverse scan (see gradient.hpp for what is
// supported). `gouts` holds one cotangent per output (nullptr: none).
std::vector<TermRef> scan_pullback(TermRef scan, const std::vector<TermRef>& gouts) {
  const auto& spec = scan->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
  if (spec.until) scan_unsupported(":until");
  if (std::ranges::any_of(spec.keep, [](std::int64_t k) { return k != 0; })) {
    // The pullback needs every state: the same scan keeping all steps, whose
    // last k rows are what this one keeps.
    ops::ScanSpec all = spec;
    all.keep.clear();
    const std::vector<TermRef> operands(scan->operands().begin(), scan->operands().end());
    const TermRef full = make(OpKind::Scan, operands, {{ops::AttrKey::Scan, all}});
    std::vector<TermRef> gfull = gouts;
    for (std::size_t i = 0; i < gfull.size() && i < spec.keep.size(); ++i)
      if (gfull[i] && spec.keep[i] != 0) {
        const TermRef whole =
            make(OpKind::Get, {full}, {{ops::AttrKey::Index, static_cast<std::int64_t>(i)}});
        gfull[i] =
            make(OpKind::IncSlice, {make(OpKind::ZerosLike, {whole}), gfull[i]},
                 {{ops::AttrKey::Axis, std::int64_t{0}}, {ops::AttrKey::Start, -spec.keep[i]}});
      }
    return scan_pullback(full, gfull);
  }
  const TermRef fn = scan->operand(0);
  const auto& params = fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
  const std::size_t off = spec.has_n_steps ? 2 : 1;
  const std::size_t nseq = spec.sequence_taps.size(), nmit = spec.mitsot_taps.size(),
                    nsit = static_cast<std::size_t>(spec.num_sitsot),
                    nnit = static_cast<std::size_t>(spec.num_nitsot),
                    nnon = static_cast<std::size_t>(spec.num_nonsequences);
  const auto& outs = std::get<ops::TupleType>(scan->type()).elements;
  const std::int64_t steps = outs.empty() ? ops::kUnknownDim : outs[0].dims[0];
  std::vector<TermRef> seqs, histories, inits, nons;
  for (std::size_t i = 0; i < nseq; ++i) seqs.push_back(scan->operand(off + i));
  for (std::size_t j = 0; j < nmit; ++j) histories.push_back(scan->operand(off + nseq + j));
  for (std::size_t j = 0; j < nsit; ++j) inits.push_back(scan->operand(off + nseq + nmit + j));
  for (std::size_t m = 0; m < nnon; ++m)
    nons.push_back(scan->operand(off + nseq + nmit + nsit + m));
  // Sequence i read at tap k at step t is x[t + k]: over all steps, the
  // slice x[k : k + steps] (x[k : len - max_tap + k] for a single sequence
  // without :n-steps, whose length sets the steps).
  std::size_t nsp = 0;
  std::vector<std::pair<std::size_t, ops::Attrs>> views;  // per sequence parameter
  for (std::size_t i = 0; i < nseq; ++i) {
    const auto& taps = spec.sequence_taps[i];
    const std::int64_t max_tap = taps.back();
    const bool by_length = !spec.has_n_steps && nseq == 1;
    if (!by_length && steps == ops::kUnknownDim)
      scan_unsupported("several sequences and an unknown number of steps");
    for (std::int64_t k : taps) {
      ops::Attrs view{{ops::AttrKey::Axis, std::int64_t{0}}, {ops::AttrKey::Start, k}};
      if (!by_length)
        view.set(ops::AttrKey::Stop, k + steps);
      else if (k < max_tap)
        view.set(ops::AttrKey::Stop, k - max_tap);
      views.emplace_back(i, std::move(view));
      ++nsp;
    }
  }
  std::size_t nmp = 0;
  for (const auto& taps : spec.mitsot_taps) nmp += taps.size();
  const std::size_t so = nsp + nmp, no = so + nsit;  // first sit-sot and non-sequence parameter

  auto get = [&](std::size_t i) {
    return make(OpKind::Get, {scan}, {{ops::AttrKey::Index, static_cast<std::int64_t>(i)}});
  };
  auto flip0 = [](TermRef t) {
    return make(OpKind::Flip, {t}, {{ops::AttrKey::Axis, ops::IntList{0}}});
  };
  auto cot = [&](std::size_t i) { return gouts[i] ? gouts[i] : make(OpKind::ZerosLike, {get(i)}); };

  // Reverse-scan parameters: sequences x_t, s_{t-1}, gS_t, gO_t; sit-sots
  // carry_j, acc_m (float non-sequences); non-sequences.
  std::vector<ops::TensorType> rparams;
  std::vector<TermRef> rseqs, rinits, rnons;
  std::vector<TermRef> args(params.size());  // forward slot -> reverse nominal
  auto param = [&](const ops::TensorType& t) {
    const TermRef n = Term::nominal(static_cast<std::int64_t>(rparams.size()), t);
    rparams.push_back(t);
    return n;
  };
  std::vector<TermRef> xs, sprev, reads, gs, gm, go, carry, pending, acc, theta;
  for (std::size_t p = 0; p < nsp; ++p) {
    xs.push_back(args[p] = param(params[p]));
    rseqs.push_back(flip0(make(OpKind::Slice, {seqs[views[p].first]}, views[p].second)));
  }
  for (std::size_t j = 0; j < nsit; ++j) {
    sprev.push_back(args[so + j] = param(params[so + j]));
    TermRef prev = make(
        OpKind::Concat,
        {make(OpKind::ExpandDims, {inits[j]}, {{ops::AttrKey::Axis, std::int64_t{0}}}),
         make(OpKind::Slice, {get(nmit + j)},
              {{ops::AttrKey::Axis, std::int64_t{0}}, {ops::AttrKey::Stop, std::int64_t{-1}}})},
        {{ops::AttrKey::Axis, std::int64_t{0}}});
    rseqs.push_back(flip0(prev));
  }
  // Mit-sot j at tap k < 0 reads H[t + depth + k] of its whole history
  // H = concat(initial history, states): the slice starting at depth + k
  // and stopping k from the end.
  std::vector<std::size_t> read_of;  // per tap parameter: its mit-sot
  std::vector<std::int64_t> tap_of;
  for (std::size_t j = 0, p = nsp; j < nmit; ++j) {
    const auto depth = static_cast<std::int64_t>(-spec.mitsot_taps[j].front());
    const TermRef whole =
        make(OpKind::Concat, {histories[j], get(j)}, {{ops::AttrKey::Axis, std::int64_t{0}}});
    for (std::int64_t k : spec.mitsot_taps[j]) {
      reads.push_back(args[p] = param(params[p]));
      ++p;
      read_of.push_back(j);
      tap_of.push_back(k);
      ops::Attrs view{{ops::AttrKey::Axis, std::int64_t{0}}, {ops::AttrKey::Start, depth + k}};
      view.set(ops::AttrKey::Stop, k);
      rseqs.push_back(flip0(make(OpKind::Slice, {whole}, view)));
    }
  }
  for (std::size_t j = 0; j < nsit; ++j) {
    gs.push_back(param(params[so + j]));
    rseqs.push_back(flip0(cot(nmit + j)));
  }
  for (std::size_t j = 0; j < nmit; ++j) {
    ops::TensorType t = outs[j];
    t.dims.erase(t.dims.begin());
    gm.push_back(param(t));
    rseqs.push_back(flip0(cot(j)));
  }
  for (std::size_t k = 0; k < nnit; ++k) {
    ops::TensorType t = outs[nmit + nsit + k];
    t.dims.erase(t.dims.begin());
    go.push_back(param(t));
    rseqs.push_back(flip0(cot(nmit + nsit + k)));
  }
  for (std::size_t j = 0; j < nsit; ++j) {
    carry.push_back(param(params[so + j]));
    rinits.push_back(make(OpKind::ZerosLike, {inits[j]}));
  }
  // Per mit-sot, the cotangents owed by later steps' reads to the current
  // state and the `depth - 1` before it (row d: state t - d).
  for (std::size_t j = 0; j < nmit; ++j) {
    pending.push_back(param(histories[j]->tensor_type()));
    rinits.push_back(make(OpKind::ZerosLike, {histories[j]}));
  }
  std::vector<std::size_t> float_nons;
  for (std::size_t m = 0; m < nnon; ++m)
    if (ops::is_float(params[no + m].dtype)) {
      float_nons.push_back(m);
      acc.push_back(param(params[no + m]));
      rinits.push_back(make(OpKind::ZerosLike, {nons[m]}));
    }
  for (std::size_t m = 0; m < nnon; ++m) {
    theta.push_back(args[no + m] = param(params[no + m]));
    rnons.push_back(nons[m]);
  }

  // The body on the reverse scan's parameters, and its pullback at one step.
  Instantiate inst(args);
  std::vector<TermRef> body, seeds;
  const TermRef zero = Term::scalar(ops::DType::I64, 0);
  for (std::size_t j = 0; j < nmit; ++j) {
    body.push_back(inst(fn->operand(j)));
    seeds.push_back(make(OpKind::Add, {gm[j], make(OpKind::Index, {pending[j], zero})}));
  }
  for (std::size_t j = 0; j < nsit; ++j) {
    body.push_back(inst(fn->operand(nmit + j)));
    seeds.push_back(make(OpKind::Add, {gs[j], carry[j]}));
  }
  for (std::size_t k = 0; k < nnit; ++k) {
    body.push_back(inst(fn->operand(nmit + nsit + k)));
    seeds.push_back(go[k]);
  }
  std::vector<TermRef> wrts = xs;
  wrts.insert(wrts.end(), sprev.begin(), sprev.end());
  wrts.insert(wrts.end(), reads.begin(), reads.end());
  for (std::size_t m : float_nons) wrts.push_back(theta[m]);
  std::vector<TermRef> gw = vjp(body, seeds, wrts);
  for (std::size_t i = 0; i < gw.size(); ++i)
    if (!gw[i]) gw[i] = make(OpKind::ZerosLike, {wrts[i]});
  std::vector<TermRef> routs;
  for (std::size_t j = 0; j < nsit; ++j) routs.push_back(gw[nsp + j]);
  for (std::size_t j = 0; j < nmit; ++j) {
    // Shift by one state, then add what this step's reads owe: tap k is
    // state t + k, row -1 - k of the next step's pending.
    const TermRef& b = pending[j];
    const auto depth = static_cast<std::int64_t>(-spec.mitsot_taps[j].front());
    const TermRef row0 = make(OpKind::Index, {b, zero});
    std::vector<TermRef> rows(static_cast<std::size_t>(depth), nullptr);
    for (std::size_t r = 0; r < nmp; ++r)
      if (read_of[r] == j) rows[static_cast<std::size_t>(-1 - tap_of[r])] = gw[nsp + nsit + r];
    for (auto& r : rows)
      if (!r) r = make(OpKind::ZerosLike, {row0});
    const TermRef owed = make(OpKind::Stack, rows, {{ops::AttrKey::Axis, std::int64_t{0}}});
    const TermRef shifted =
        make(OpKind::Concat,
             {make(OpKind::Slice, {b},
                   {{ops::AttrKey::Axis, std::int64_t{0}}, {ops::AttrKey::Start, std::int64_t{1}}}),
              make(OpKind::ExpandDims, {make(OpKind::ZerosLike, {row0})},
                   {{ops::AttrKey::Axis, std::int64_t{0}}})},
             {{ops::AttrKey::Axis, std::int64_t{0}}});
    routs.push_back(make(OpKind::Add, {shifted, owed}));
  }
  for (std::size_t a = 0; a < float_nons.size(); ++a)
    routs.push_back(make(OpKind::Add, {acc[a], gw[nsp + nsit + nmp + a]}));
  for (std::size_t p = 0; p < nsp; ++p) routs.push_back(gw[p]);

  ops::ScanSpec rspec;
  rspec.sequence_taps.assign(rseqs.size(), ops::IntList{0});
  rspec.num_sitsot = static_cast<std::int64_t>(nsit + nmit + float_nons.size());
  rspec.num_nitsot = static_cast<std::int64_t>(nsp);
  rspec.num_nonsequences = static_cast<std::int64_t>(nnon);
  std::vector<TermRef> operands{Term::fn(rparams, routs)};
  operands.insert(operands.end(), rseqs.begin(), rseqs.end());
  operands.insert(operands.end(), rinits.begin(), rinits.end());
  operands.insert(operands.end(), rnons.begin(), rnons.end());
  const TermRef rev = make(OpKind::Scan, operands, {{ops::AttrKey::Scan, rspec}});
  auto rget = [&](std::size_t i) {
    return make(OpKind::Get, {rev}, {{ops::AttrKey::Index, static_cast<std::int64_t>(i)}});
  };
  auto last = [&](TermRef t) {
    return make(OpKind::Index, {t, Term::scalar(ops::DType::I64, -1)});
  };

  std::vector<TermRef> out(scan->arity(), nullptr);
  // Integer sequences and states (indices, counters) get no cotangent.
  auto is_float = [&](std::size_t operand) {
    return ops::is_float(scan->operand(operand)->tensor_type().dtype);
  };
  for (std::size_t p = 0; p < nsp; ++p) {
    const std::size_t i = views[p].first;
    const TermRef part = flip0(rget(nsit + nmit + float_nons.size() + p));
    const TermRef g =
        make(OpKind::IncSlice, {make(OpKind::ZerosLike, {seqs[i]}), part}, views[p].second);
    if (is_float(off + i)) out[off + i] = out[off + i] ? make(OpKind::Add, {out[off + i], g}) : g;
  }
  for (std::size_t j = 0; j < nmit; ++j)
    if (is_float(off + nseq + j)) out[off + nseq + j] = flip0(last(rget(nsit + j)));
  for (std::size_t j = 0; j < nsit; ++j)
    if (is_float(off + nseq + nmit + j)) out[off + nseq + nmit + j] = last(rget(j));
  for (std::size_t a = 0; a < float_nons.size(); ++a)
    out[off + nseq + nmit + nsit + float_nons[a]] = last(rget(nsit + nmit + a));
  return out;
}

// Cotangents of `wrts` given cotangents `seeds` of `outputs` (a seed may be
// nullptr); nullptr for a wrt no output depends on.
std::vector<TermRef> vjp(std::span<const TermRef> outputs, std::span<const TermRef> seeds,
                         std::span<const TermRef> wrts) {
  const std::unordered_set<TermRef> targets(wrts.begin(), wrts.end());
  // The terms on a path from a wrt to an output, in post-order.
  std::unordered_map<TermRef, bool> depends;
  std::vector<TermRef> order;
  struct Frame {
    TermRef t;
    std::size_t next;
  };
  for (TermRef root : outputs) {
    if (depends.contains(root)) continue;
    std::vector<Frame> stack{{root, 0}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (targets.contains(f.t)) {
        depends[f.t] = true;
        order.push_back(f.t);
        stack.pop_back();
        continue;
      }
      if (f.t->kind() != OpKind::Fn && f.next < f.t->arity()) {
        TermRef o = f.t->operand(f.next++);
        if (!depends.contains(o)) stack.push_back({o, 0});
        continue;
      }
      bool d = false;
      if (f.t->kind() != OpKind::Fn)
        for (TermRef o : f.t->operands()) d = d || depends.at(o);
      depends[f.t] = d;
      if (d) order.push_back(f.t);
      stack.pop_back();
    }
  }

  std::unordered_map<TermRef, TermRef> cotangent;
  std::unordered_map<TermRef, std::vector<TermRef>> tuple_cotangent;  // scan results, per output
  auto accumulate = [](TermRef& slot, TermRef g) {
    slot = slot ? Term::make(OpKind::Add, {}, {slot, g}) : g;
  };
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (seeds[i]) accumulate(cotangent[outputs[i]], seeds[i]);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    TermRef t = *it;
    if (targets.contains(t)) continue;
    std::vector<TermRef> gs;
    if (t->kind() == OpKind::Scan) {
      const auto found = tuple_cotangent.find(t);
      if (found == tuple_cotangent.end()) continue;
      gs = scan_pullback(t, found->second);
    } else {
      const auto found = cotangent.find(t);
      if (found == cotangent.end() || !found->second) continue;
      if (t->kind() == OpKind::Get && t->operand(0)->kind() == OpKind::Scan) {
        const TermRef s = t->operand(0);
        auto& slots = tuple_cotangent[s];
        slots.resize(std::get<ops::TupleType>(s->type()).elements.size(), nullptr);
        accumulate(
            slots[static_cast<std::size_t>(t->attrs().get<std::int64_t>(ops::AttrKey::Index))],
            found->second);
        continue;
      }
      gs = ops::pullback(t, found->second);
    }
    for (std::size_t i = 0; i < gs.size(); ++i) {
      TermRef o = t->operand(i);
      if (gs[i] && depends.at(o)) accumulate(cotangent[o], gs[i]);
    }
  }
  std::vector<TermRef> out;
  for (TermRef w : wrts) {
    const auto found = cotangent.find(w);
    out.push_back(found == cotangent.end() ? nullptr : found->second);
  }
  return out;
}

}  // namespace

TermRef gradient(TermRef cost, TermRef wrt) {
  cost = inline_calls_in_term(cost);
  const ops::TensorType& ct = cost->tensor_type();
  if (!ct.is_scalar() || !ops::is_float(ct.dtype))
    throw ops::PullbackError("grad: the cost must be a float scalar");
  const TermRef seed = Term::scalar(ct.dtype, 1.0);
  const TermRef g = vjp(std::span(&cost, 1), std::span(&seed, 1), std::span(&wrt, 1))[0];
  return g ? g : Term::make(OpKind::ZerosLike, {}, {wrt});
}

}  // namespace eqsat::rules
