#include "rules/loops/scan_save_mem.hpp"

#include "rules/loops/scan_view.hpp"

#include "ops/slice.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ENodeId;
using ops::AttrKey;
using ops::OpKind;

namespace {

// One way to write a read: the steps it needs (the first `need` when
// counted from the start, the last `need` when counted from the end) and
// its bounds in that form (an `index` keeps its index in `bounds.start`).
struct Form {
  std::int64_t need = 0;
  ops::SliceBounds bounds;
};

// An `index` or axis-0 `slice` of a scan output by constants, with the
// forms it can be rebuilt in on another loop's output, or an `index` by a
// run-time integer (`index` holds its class).
struct Reader {
  ENodeId node;
  OpKind kind = OpKind::Index;
  ops::DType index_dtype = ops::DType::I64;
  std::optional<Form> from_start, from_end;
  std::optional<EClassId> index;
};

// The reads of one output of a scan class: the classes of its `get`s, their
// readers, and `all` when some other use needs every step.
struct OutputReads {
  std::vector<EClassId> gets;
  std::vector<Reader> readers;
  std::int64_t rows = ops::kUnknownDim;  // leading dimension, when known
  bool all = false;
  bool read() const { return all || !readers.empty(); }
};

std::optional<std::int64_t> int_attr(const ops::Attrs& a, AttrKey key) {
  if (const ops::AttrValue* v = a.find(key))
    if (const auto* i = std::get_if<std::int64_t>(v)) return *i;
  return std::nullopt;
}

// The reader `q` of output class `out`, or nullopt when it is not one the
// rewrite understands. With a known number of rows a read is written both
// from the start and from the end; otherwise as written.
std::optional<Reader> classify(const TensorEGraph& g, ENodeId q, EClassId out) {
  const egraph::EGraph& eg = g.egraph();
  const auto kids = eg.children(q);
  if (kids.empty() || eg.find(kids[0]) != out) return std::nullopt;
  const auto* t = std::get_if<ops::TensorType>(&g.type(out));
  if (!t || t->dims.empty()) return std::nullopt;
  const std::int64_t len = t->dims[0];
  const bool known = len != ops::kUnknownDim;
  Reader r;
  r.node = q;
  r.kind = g.kind(q);
  if (r.kind == OpKind::Index) {
    if (eg.find(kids[1]) == out) return std::nullopt;
    const TensorData& d = g.data(kids[1]);
    const auto* it = std::get_if<ops::TensorType>(&d.type());
    if (!it || it->rank() != 0 || !ops::is_integer(it->dtype)) return std::nullopt;
    r.index_dtype = it->dtype;
    if (!d.uniform) {
      r.index = eg.find(kids[1]);
      return r;
    }
    // No history is 2^62 steps long: such an index is left as written
    // (and its conversion to int64 stays defined).
    if (!(std::abs(*d.uniform) < 0x1p62)) return std::nullopt;
    std::int64_t c = static_cast<std::int64_t>(*d.uniform);
    if (known) {
      if (c < -len || c >= len) return std::nullopt;  // out of range: fails either way
      if (c < 0) c += len;
      r.from_start = Form{c + 1, {c, {}, {}}};
      r.from_end = Form{len - c, {c - len, {}, {}}};
    } else if (c >= 0) {
      r.from_start = Form{c + 1, {c, {}, {}}};
    } else {
      r.from_end = Form{-c, {c, {}, {}}};
    }
    return r;
  }
  if (r.kind != OpKind::Slice) return std::nullopt;
  const ops::Attrs& a = g.attrs(q);
  if (int_attr(a, AttrKey::Axis).value_or(0) != 0) return std::nullopt;
  const ops::SliceBounds b{int_attr(a, AttrKey::Start), int_attr(a, AttrKey::Stop),
                           int_attr(a, AttrKey::Step)};
  if (b.step && *b.step <= 0) return std::nullopt;
  if (known) {
    const ops::ResolvedSlice s = ops::resolve_slice(b, len);
    if (s.length == 0) return std::nullopt;
    const std::int64_t first = s.start, stop = s.start + (s.length - 1) * s.step + 1;
    r.from_start = Form{stop, {first, stop, b.step}};
    std::optional<std::int64_t> end_stop;
    if (stop < len) end_stop = stop - len;
    r.from_end = Form{len - first, {first - len, end_stop, b.step}};
    return r;
  }
  if ((!b.start || *b.start >= 0) && b.stop && *b.stop >= 0) r.from_start = Form{*b.stop, b};
  if (b.start && *b.start < 0 && (!b.stop || *b.stop < 0)) r.from_end = Form{-*b.start, b};
  if (!r.from_start && !r.from_end) return std::nullopt;
  return r;
}

// How every output of scan class `scan` is read; nullopt when the tuple
// has a use other than `get`.
std::optional<std::vector<OutputReads>> reads_of(const TensorEGraph& g, EClassId scan,
                                                 std::size_t num_outputs) {
  const egraph::EGraph& eg = g.egraph();
  std::vector<OutputReads> out(num_outputs);
  for (ENodeId p : eg.parents(scan)) {
    if (g.kind(p) != OpKind::Get) return std::nullopt;
    const auto i = static_cast<std::size_t>(g.attrs(p).get<std::int64_t>(AttrKey::Index));
    const EClassId got = eg.class_of(p);
    if (i >= num_outputs || std::ranges::count(out[i].gets, got) > 0) continue;
    out[i].gets.push_back(got);
    if (const auto* t = std::get_if<ops::TensorType>(&g.type(got)); t && !t->dims.empty())
      out[i].rows = t->dims[0];
    for (ENodeId q : eg.parents(got)) {
      if (auto r = classify(g, q, got))
        out[i].readers.push_back(*r);
      else
        out[i].all = true;
    }
  }
  return out;
}

// `r` rebuilt in form `f` on output class `got`.
std::optional<EClassId> rebuild(TensorEGraph& g, const Reader& r, const Form& f, EClassId got) {
  if (r.kind == OpKind::Index) {
    const std::array kids{
        got, g.add_term(ops::Term::scalar(r.index_dtype, static_cast<double>(*f.bounds.start)))};
    return g.add_op(OpKind::Index, {}, kids);
  }
  ops::Attrs a{{AttrKey::Axis, std::int64_t{0}}};
  if (f.bounds.start) a.set(AttrKey::Start, *f.bounds.start);
  if (f.bounds.stop) a.set(AttrKey::Stop, *f.bounds.stop);
  if (f.bounds.step) a.set(AttrKey::Step, *f.bounds.step);
  const std::array kids{got};
  return g.add_op(OpKind::Slice, a, kids);
}

// True when class `c` already holds `(minimum x m')` or `(slice x :stop m')`
// (axis 0, from the start) with a constant m' <= `limit`: a loop cut once
// is not cut again.
bool capped(const TensorEGraph& g, EClassId c, std::int64_t limit) {
  const egraph::EGraph& eg = g.egraph();
  for (ENodeId n : eg.nodes(c)) {
    if (g.kind(n) == OpKind::Minimum) {
      for (EClassId k : eg.children(n))
        if (const auto& u = g.data(k).uniform; u && *u <= static_cast<double>(limit)) return true;
    } else if (g.kind(n) == OpKind::Slice) {
      const ops::Attrs& a = g.attrs(n);
      const auto stop = int_attr(a, AttrKey::Stop);
      if (int_attr(a, AttrKey::Axis).value_or(0) == 0 && !a.has(AttrKey::Start) &&
          !a.has(AttrKey::Step) && stop && *stop >= 0 && *stop <= limit)
        return true;
    }
  }
  return false;
}

class SaveMem final : public ScanApplier {
 public:
  explicit SaveMem(TensorEGraph& g) : ScanApplier(g, "scan-save-mem") {}

 private:
  bool rewrite(egraph::EGraph&, EClassId root, const ScanView& s) override {
    const auto reads = reads_of(g(), root, s.num_outputs());
    if (!reads) return false;
    const bool fewer = fewer_steps(s, *reads);
    return keep_last(s, *reads) || fewer;
  }

  std::int64_t keep_of(const ScanView& s, std::size_t i) const {
    return s.spec.keep.empty() ? 0 : s.spec.keep[i];
  }

  // Every read output read within its first m steps: the loop runs m steps.
  bool fewer_steps(const ScanView& s, const std::vector<OutputReads>& reads) {
    std::int64_t m = -1;
    bool at_run_time = false;
    for (std::size_t i = 0; i < reads.size(); ++i) {
      if (!reads[i].read()) continue;
      if (reads[i].all || keep_of(s, i) != 0) return false;
      for (const Reader& r : reads[i].readers) {
        at_run_time |= r.index.has_value();
        if (r.index) continue;
        if (!r.from_start) return false;
        m = std::max(m, r.from_start->need);
      }
    }
    if (at_run_time) return fewer_steps_at_run_time(s, reads, std::max<std::int64_t>(m, 0));
    if (m < 0) return false;
    ops::ScanSpec spec = s.spec;
    std::vector<EClassId> operands = s.operands;
    if (spec.has_n_steps) {
      const EClassId n = s.operands[s.n_steps_operand()];
      const ops::DType d = std::get<ops::TensorType>(g().type(n)).dtype;
      if (const auto& u = g().data(n).uniform) {
        if (static_cast<double>(m) >= *u) return false;
        operands[s.n_steps_operand()] = constant(d, m);
      } else {
        if (const auto b = sequence_steps(g(), s); b && m >= *b) return false;
        if (capped(g(), n, m)) return false;
        const std::array kids{n, constant(d, m)};
        const auto fewer = g().add_op(OpKind::Minimum, {}, kids);
        if (!fewer) return false;
        operands[s.n_steps_operand()] = *fewer;
      }
    } else if (const auto b = sequence_steps(g(), s)) {
      if (m >= *b) return false;
      spec.has_n_steps = true;
      operands.insert(operands.begin() + 1, constant(ops::DType::I64, m));
    } else {
      // Unknown lengths: each sequence cut to the rows m steps read.
      bool all_capped = true;
      for (std::size_t j = 0; j < s.num_sequences() && all_capped; ++j)
        all_capped =
            capped(g(), s.operands[s.sequence_operand(j)], m + s.spec.sequence_taps[j].back());
      if (all_capped) return false;
      for (std::size_t j = 0; j < s.num_sequences(); ++j) {
        const ops::Attrs a{{AttrKey::Axis, std::int64_t{0}},
                           {AttrKey::Stop, m + s.spec.sequence_taps[j].back()}};
        const std::array kids{s.operands[s.sequence_operand(j)]};
        const auto cut = g().add_op(OpKind::Slice, a, kids);
        if (!cut) return false;
        operands[s.sequence_operand(j)] = *cut;
      }
    }
    return read_from_start(s, spec, operands, reads);
  }

  // Some reader indexes by a run-time integer i: the loop runs
  // min(N, max(m, a + 1, ...)) of its N steps, where m covers the constant
  // readers and a is i + N for i in [-N, 0), i otherwise; that reader then
  // indexes by a. An i out of range (a outside [0, N)) needs all N steps
  // and reads at i: the read fails with the message it gave before.
  // An `:until` loop may stop before its bound N, so only the steps it ran
  // say where a negative i points: there a negative i needs every step, a
  // non-negative one i + 1, and the reader keeps i.
  bool fewer_steps_at_run_time(const ScanView& s, const std::vector<OutputReads>& reads,
                               std::int64_t m) {
    ops::ScanSpec spec = s.spec;
    std::vector<EClassId> operands = s.operands;
    EClassId n;
    ops::DType d = ops::DType::I64;
    if (spec.has_n_steps) {
      n = s.operands[s.n_steps_operand()];
      d = std::get<ops::TensorType>(g().type(n)).dtype;
      const egraph::EGraph& eg = g().egraph();
      // Cut once: a bound on the steps is not bounded again.
      if (std::ranges::any_of(eg.nodes(n),
                              [&](ENodeId k) { return g().kind(k) == OpKind::Minimum; }))
        return false;
    } else if (const auto b = sequence_steps(g(), s)) {
      n = constant(d, *b);
      spec.has_n_steps = true;
      operands.insert(operands.begin() + 1, n);
    } else {
      return false;
    }
    auto op = [&](OpKind k, auto... xs) -> std::optional<EClassId> {
      if ((!xs || ...)) return std::nullopt;
      return g().add_op(k, {}, std::array{*xs...});
    };
    const std::optional<EClassId> zero = constant(d, 0), one = constant(d, 1), total = n;
    std::map<ENodeId, EClassId> index_at;  // per run-time reader, its index from the start
    std::optional<EClassId> most;
    for (const OutputReads& out : reads)
      for (const Reader& r : out.readers) {
        if (!r.index) continue;
        std::optional<EClassId> i = *r.index;
        if (r.index_dtype != d) i = g().add_op(OpKind::Cast, {{AttrKey::Dtype, d}}, std::array{*i});
        std::optional<EClassId> at = i, need;
        if (s.spec.until) {
          need = op(OpKind::Where, op(OpKind::Ge, i, zero), op(OpKind::Add, i, one), total);
        } else {
          const auto a = op(OpKind::Where, op(OpKind::Lt, i, zero), op(OpKind::Add, i, total), i);
          const auto ok = op(OpKind::LogicalAnd, op(OpKind::Ge, a, zero), op(OpKind::Lt, a, total));
          at = op(OpKind::Where, ok, a, i);
          need = op(OpKind::Where, ok, op(OpKind::Add, a, one), total);
        }
        most = most ? op(OpKind::Maximum, most, need) : need;
        if (!at || !most) return false;
        index_at.emplace(r.node, *at);
      }
    // The constant outermost, where the cost model looks for a lower bound.
    const auto steps =
        op(OpKind::Minimum, total, op(OpKind::Maximum, std::optional(constant(d, m)), most));
    if (!steps) return false;
    operands[1] = *steps;
    return read_from_start(s, spec, operands, reads, index_at);
  }

  // Adds loop `s` with `spec` and `operands` and merges each reader of a
  // read output with the same read of the new loop, counted from the
  // start: an index by a run-time integer reads at `index_at` of its node.
  bool read_from_start(const ScanView& s, const ops::ScanSpec& spec,
                       std::span<const EClassId> operands, const std::vector<OutputReads>& reads,
                       const std::map<ENodeId, EClassId>& index_at = {}) {
    const auto scan = add_scan(g(), s.attrs, spec, operands);
    if (!scan) return false;
    bool changed = false;
    for (std::size_t i = 0; i < reads.size(); ++i) {
      if (!reads[i].read()) continue;
      const auto got = output(*scan, i);
      if (!got) continue;
      for (const Reader& r : reads[i].readers) {
        const auto read = r.index
                              ? g().add_op(OpKind::Index, {}, std::array{*got, index_at.at(r.node)})
                              : rebuild(g(), r, *r.from_start, *got);
        changed |= merge_same(g(), g().egraph().class_of(r.node), read);
      }
    }
    return changed;
  }

  EClassId constant(ops::DType d, std::int64_t v) {
    return g().add_term(ops::Term::scalar(d, static_cast<double>(v)));
  }

  // Outputs read only in their last k steps keep k steps; the others are
  // shared with the old loop.
  bool keep_last(const ScanView& s, const std::vector<OutputReads>& reads) {
    ops::IntList keep(s.num_outputs());
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = keep_of(s, i);
    ops::IntList want = keep;
    for (std::size_t i = 0; i < reads.size(); ++i) {
      // An output nothing reads (a state only other states read) keeps one
      // step: the body still computes it.
      if (reads[i].gets.empty() && keep[i] == 0) want[i] = 1;
      if (!reads[i].read() || reads[i].all) continue;
      std::int64_t k = 0;
      bool last = true;
      for (const Reader& r : reads[i].readers) {
        last = last && r.from_end;
        if (r.from_end) k = std::max(k, r.from_end->need);
      }
      const bool fewer_rows = reads[i].rows == ops::kUnknownDim || k < reads[i].rows;
      if (last && k >= 1 && fewer_rows && (keep[i] == 0 || k < keep[i])) want[i] = k;
    }
    if (want == keep) return false;
    ops::ScanSpec spec = s.spec;
    spec.keep = want;
    const auto scan = add_scan(g(), s.attrs, spec, s.operands);
    if (!scan) return false;
    bool changed = false;
    for (std::size_t i = 0; i < reads.size(); ++i) {
      // Outputs that keep what they kept are the same values (graph outputs
      // included, which no reader shows).
      if (reads[i].gets.empty()) continue;
      const auto got = output(*scan, i);
      if (!got) continue;
      if (want[i] == keep[i]) {
        for (EClassId old : reads[i].gets) changed |= merge_same(g(), old, got);
        continue;
      }
      for (const Reader& r : reads[i].readers)
        changed |=
            merge_same(g(), g().egraph().class_of(r.node), rebuild(g(), r, *r.from_end, *got));
    }
    return changed;
  }

  std::optional<EClassId> output(EClassId scan, std::size_t i) {
    const std::array kids{scan};
    return g().add_op(OpKind::Get, {{AttrKey::Index, static_cast<std::int64_t>(i)}}, kids);
  }
};

}  // namespace

egraph::Rewrite make_scan_save_mem(TensorEGraph& g) {
  return make_scan_rewrite("scan-save-mem", std::make_shared<SaveMem>(g));
}

}  // namespace eqsat::rules
