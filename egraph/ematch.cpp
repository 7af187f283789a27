#include "egraph/ematch.hpp"

#include "support/internal_error.hpp"

#include <absl/container/inlined_vector.h>

#include <algorithm>
#include <deque>
#include <numeric>

namespace eqsat::egraph {
namespace {

constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();

// The class of a ground subterm in the snapshot; `newest` is raised to the
// stamps of the e-nodes it was found through.
std::optional<EClassId> lookup_ground(const EGraph& g, const Pattern& p, std::uint32_t i,
                                      std::uint32_t& newest) {
  const Pattern::Node& n = p.node(i);
  absl::InlinedVector<EClassId, 4> kids;
  for (std::uint32_t c : p.children(i)) {
    std::optional<EClassId> k = lookup_ground(g, p, c, newest);
    if (!k) return std::nullopt;
    kids.push_back(*k);
  }
  std::uint32_t stamp = 0;
  std::optional<EClassId> found = g.lookup_in_snapshot(n.op, n.payload.value, kids, &stamp);
  newest = std::max(newest, stamp);
  return found;
}

}  // namespace

struct MatchProgram::State {
  State(const EGraph& graph, Matches& m, std::size_t more) : g(graph), out(m), left(more) {}
  const EGraph& g;
  Matches& out;
  // Matches (written or skipped) still allowed; the search stops at 0. A
  // countdown: one decrement a match where the sum of the three counts
  // below took three loads and two additions.
  std::size_t left;
  std::size_t flushed = 0;  // matches handed to the sink
  // Matches whose e-nodes all have stamps <= seen_through are counted in
  // `skipped`, not written (0: none are, stamps start at 1).
  std::uint32_t seen_through = 0;
  std::size_t skipped = 0;
  std::uint32_t grounds_newest = 0;  // the newest stamp the ground terms were found through
  const MatchSink* sink = nullptr;
  // Registers: inline for the patterns of usual rules (a search then
  // allocates nothing), read through plain pointers.
  void size_registers(std::size_t n, std::size_t np) {
    reg_store.resize(n);
    preg_store.resize(np);
    regs = reg_store.data();
    pregs = preg_store.data();
  }
  absl::InlinedVector<EClassId, 16> reg_store;
  absl::InlinedVector<Payload, 4> preg_store;
  EClassId* regs = nullptr;
  Payload* pregs = nullptr;
  absl::InlinedVector<EClassId, 4> grounds;
  bool stop = false;
};

MatchProgram::MatchProgram(const Pattern& pattern) {
  EQSAT_ASSERT(!pattern.empty()) << "MatchProgram: empty pattern";
  patterns_.push_back(pattern);
  const Pattern& p = patterns_.back();
  layout_.vars = p.vars();
  layout_.payload_vars = p.payload_vars();
  std::vector<std::uint32_t> var_reg(p.vars().size(), kUnset);
  std::vector<std::uint32_t> pvar_reg(p.payload_vars().size(), kUnset);
  std::vector<std::uint32_t> var_global(p.vars().size()), pvar_global(p.payload_vars().size());
  std::iota(var_global.begin(), var_global.end(), 0u);
  std::iota(pvar_global.begin(), pvar_global.end(), 0u);
  const Pattern::Node& root = p.node(p.root());
  if (root.is_var) {
    code_.push_back(Instr(Kind::ScanAll));
    var_reg[root.var] = 0;
  } else {
    compile_part(p, 0, true, var_reg, pvar_reg, var_global, pvar_global);
  }
  finish_layout(var_reg, pvar_reg);
}

MatchProgram::MatchProgram(const MultiPattern& mp) {
  EQSAT_ASSERT(!mp.parts.empty()) << "MatchProgram: empty multi-pattern";
  patterns_.reserve(mp.parts.size());
  for (const auto& [v, p] : mp.parts) {
    EQSAT_ASSERT(!p.empty() && !p.node(p.root()).is_var)
        << "MatchProgram: a multi-pattern part must be an operator pattern";
    patterns_.push_back(p);
  }
  auto global = [](std::vector<Symbol>& names, Symbol v) {
    auto it = std::find(names.begin(), names.end(), v);
    if (it != names.end()) return static_cast<std::uint32_t>(it - names.begin());
    names.push_back(v);
    return static_cast<std::uint32_t>(names.size() - 1);
  };
  std::vector<std::uint32_t> var_reg, pvar_reg;
  n_regs_ = 0;
  for (std::size_t i = 0; i < mp.parts.size(); ++i) {
    const Pattern& p = patterns_[i];
    std::uint32_t root_var = global(layout_.vars, mp.parts[i].first);
    std::vector<std::uint32_t> var_global, pvar_global;
    for (Symbol v : p.vars()) var_global.push_back(global(layout_.vars, v));
    for (Symbol v : p.payload_vars()) pvar_global.push_back(global(layout_.payload_vars, v));
    var_reg.resize(layout_.vars.size(), kUnset);
    pvar_reg.resize(layout_.payload_vars.size(), kUnset);
    bool scan = var_reg[root_var] == kUnset;
    if (scan) var_reg[root_var] = n_regs_++;
    compile_part(p, var_reg[root_var], scan, var_reg, pvar_reg, var_global, pvar_global);
  }
  finish_layout(var_reg, pvar_reg);
}

void MatchProgram::finish_layout(const std::vector<std::uint32_t>& var_reg,
                                 const std::vector<std::uint32_t>& pvar_reg) {
  var_regs_ = var_reg;
  pvar_regs_ = pvar_reg;
  for (std::uint32_t r : var_regs_)
    EQSAT_ASSERT(r != kUnset) << "MatchProgram: a variable got no register";
  for (const Instr& in : code_) {
    if (in.kind == Kind::Bind && in.payload_kind == PayloadMatch::Kind::Any) has_any_ = true;
  }
}

void MatchProgram::compile_part(const Pattern& p, std::uint32_t root_reg, bool scan,
                                std::vector<std::uint32_t>& var_reg,
                                std::vector<std::uint32_t>& pvar_reg,
                                const std::vector<std::uint32_t>& var_global,
                                const std::vector<std::uint32_t>& pvar_global) {
  std::uint32_t pattern_index = static_cast<std::uint32_t>(&p - patterns_.data());
  if (scan) {
    Instr s(Kind::Scan);
    s.reg = root_reg;
    s.op = p.node(p.root()).op;
    code_.push_back(s);
  }
  // Breadth-first: after each Bind, check its repeated variables and ground
  // children at once, so that failing candidates are dropped early.
  std::deque<std::pair<std::uint32_t, std::uint32_t>> todo{{p.root(), root_reg}};
  while (!todo.empty()) {
    auto [i, reg] = todo.front();
    todo.pop_front();
    const Pattern::Node& n = p.node(i);
    Instr b(Kind::Bind);
    b.reg = reg;
    b.op = n.op;
    b.arity = n.arity;
    b.other = n_regs_;
    b.payload_kind = n.payload.kind;
    if (n.payload.kind == PayloadMatch::Kind::Exact) b.payload = n.payload.value;
    if (n.payload.kind == PayloadMatch::Kind::Var) {
      std::uint32_t gv = pvar_global[n.payload.var];
      if (pvar_reg[gv] == kUnset) {
        pvar_reg[gv] = n_pregs_++;
        b.payload_first = true;
      }
      b.payload = pvar_reg[gv];
    }
    n_regs_ += n.arity;
    code_.push_back(b);
    std::span<const std::uint32_t> kids = p.children(i);
    for (std::uint32_t k = 0; k < kids.size(); ++k) {
      std::uint32_t r = b.other + k;
      const Pattern::Node& c = p.node(kids[k]);
      if (c.is_var) {
        std::uint32_t gv = var_global[c.var];
        if (var_reg[gv] == kUnset) {
          var_reg[gv] = r;
        } else {
          Instr cmp(Kind::Compare);
          cmp.reg = r;
          cmp.other = var_reg[gv];
          code_.push_back(cmp);
        }
      } else if (p.is_ground(kids[k])) {
        Instr gr(Kind::Ground);
        gr.reg = r;
        gr.other = static_cast<std::uint32_t>(grounds_.size());
        grounds_.push_back({pattern_index, kids[k]});
        code_.push_back(gr);
      } else {
        todo.emplace_back(kids[k], r);
      }
    }
  }
}

bool MatchProgram::resolve_grounds(const EGraph& g, State& s) const {
  auto& out = s.grounds;
  out.clear();
  s.grounds_newest = 0;
  for (const GroundTerm& t : grounds_) {
    std::optional<EClassId> c = lookup_ground(g, patterns_[t.pattern], t.node, s.grounds_newest);
    if (!c) return false;  // a ground subterm absent from the e-graph: no match
    out.push_back(*c);
  }
  return true;
}

[[gnu::always_inline]] inline void MatchProgram::emit(State& s, std::uint32_t newest) const {
  if (newest <= s.seen_through && s.seen_through != 0) {
    ++s.skipped;
  } else {
    s.out.roots.push_back(s.regs[0]);
    for (std::uint32_t r : var_regs_) s.out.classes.push_back(s.regs[r]);
    for (std::uint32_t r : pvar_regs_) s.out.payloads.push_back(s.pregs[r]);
  }
  if (--s.left == 0) s.stop = true;
}

void MatchProgram::run(State& s, std::size_t pc, std::uint32_t newest) const {
  if (pc == code_.size()) {
    emit(s, newest);
    return;
  }
  const Instr& in = code_[pc];
  switch (in.kind) {
    case Kind::Scan:
    case Kind::ScanAll: {
      std::span<const EClassId> classes =
          in.kind == Kind::Scan ? s.g.classes_with_op(in.op) : s.g.classes();
      for (EClassId c : classes) {
        std::size_t before = s.out.size();
        s.regs[in.reg] = c;
        // A lone variable's stamp only matters when seen matches are skipped.
        run(s, pc + 1, in.kind == Kind::Scan || s.seen_through == 0 ? newest : class_stamp(s.g, c));
        if (has_any_ && pc == 0) {
          const std::size_t found = s.out.size();
          dedup_from(s.out, before);
          s.left += found - s.out.size();  // duplicates do not count
        }
        if (pc == 0 && s.sink && s.out.size() >= kBatch && !s.stop) {
          s.flushed += s.out.size();
          bool go = (*s.sink)(s.out);
          s.out.clear();
          if (!go) s.stop = true;
        }
        if (s.stop) return;
      }
      return;
    }
    case Kind::Bind: {
      // The class's e-nodes, packed and sorted by operator (EGraph::packed_nodes).
      std::span<const std::uint32_t> words = s.g.packed_nodes(s.regs[in.reg]);
      const std::uint32_t* p = words.data();
      const std::uint32_t* end = p + words.size();
      const std::uint32_t op = in.op.id();
      // The program's last Bind writes its matches here, not a call deeper
      // (one call less per match: most matches end in a Bind).
      const bool last = pc + 1 == code_.size();
      for (; p < end; p += EGraph::kPackedHeader + p[1]) {
        if (p[0] != op) {
          if (p[0] > op) break;
          continue;
        }
        if (p[1] != in.arity) continue;
        const Payload payload = p[2] | static_cast<Payload>(p[3]) << 32;
        switch (in.payload_kind) {
          case PayloadMatch::Kind::Exact:
            if (payload != in.payload) continue;
            break;
          case PayloadMatch::Kind::Any:
            break;
          case PayloadMatch::Kind::Var:
            if (in.payload_first) {
              s.pregs[in.payload] = payload;
            } else if (s.pregs[in.payload] != payload) {
              continue;
            }
            break;
        }
        EClassId* out = s.regs + in.other;
        const std::uint32_t* kids = p + EGraph::kPackedHeader;
        // Two children or fewer (nearly every operator) without a loop.
        if (in.arity >= 1) out[0] = EClassId(kids[0]);
        if (in.arity >= 2) out[1] = EClassId(kids[1]);
        for (std::uint32_t c = 2; c < in.arity; ++c) out[c] = EClassId(kids[c]);
        if (last)
          emit(s, std::max(newest, p[4]));
        else
          run(s, pc + 1, std::max(newest, p[4]));
        if (s.stop) return;
      }
      return;
    }
    case Kind::Compare:
      if (s.regs[in.reg] == s.regs[in.other]) run(s, pc + 1, newest);
      return;
    case Kind::Ground:
      if (s.regs[in.reg] == s.grounds[in.other]) run(s, pc + 1, newest);
      return;
  }
}

std::uint32_t MatchProgram::class_stamp(const EGraph& g, EClassId c) {
  std::uint32_t oldest = std::numeric_limits<std::uint32_t>::max();
  const std::span<const std::uint32_t> words = g.packed_nodes(c);
  for (const std::uint32_t* p = words.data(); p < words.data() + words.size();
       p += EGraph::kPackedHeader + p[1])
    oldest = std::min(oldest, p[4]);
  return oldest;
}

void MatchProgram::dedup_from(Matches& m, std::size_t begin) const {
  // With `any` payloads two e-nodes differing only in payload give the same
  // substitution; keep the first of each.
  const std::size_t nv = layout_.vars.size(), np = layout_.payload_vars.size();
  std::size_t kept = begin;
  for (std::size_t i = begin; i < m.size(); ++i) {
    bool seen = false;
    for (std::size_t j = begin; j < kept && !seen; ++j) {
      seen = m.roots[i] == m.roots[j] &&
             std::equal(m.classes.begin() + i * nv, m.classes.begin() + (i + 1) * nv,
                        m.classes.begin() + j * nv) &&
             std::equal(m.payloads.begin() + i * np, m.payloads.begin() + (i + 1) * np,
                        m.payloads.begin() + j * np);
    }
    if (seen) continue;
    if (kept != i) {
      m.roots[kept] = m.roots[i];
      std::copy_n(m.classes.begin() + i * nv, nv, m.classes.begin() + kept * nv);
      std::copy_n(m.payloads.begin() + i * np, np, m.payloads.begin() + kept * np);
    }
    ++kept;
  }
  m.roots.resize(kept);
  m.classes.resize(kept * nv);
  m.payloads.resize(kept * np);
}

std::size_t MatchProgram::search(const EGraph& g, Matches& out, std::size_t limit,
                                 const MatchSink* sink, std::uint32_t seen_through,
                                 std::size_t* skipped) const {
  EQSAT_ASSERT(seen_through == 0 || skips_seen())
      << "MatchProgram::search: this program cannot tell seen matches";
  out.layout = &layout_;
  const std::size_t initial = out.size();
  State s(g, out, limit);
  s.sink = sink;
  s.seen_through = seen_through;
  if (limit == 0 || !resolve_grounds(g, s)) return 0;
  s.size_registers(n_regs_, n_pregs_);
  run(s, 0, s.grounds_newest);
  if (skipped) *skipped += s.skipped;
  return s.flushed + s.skipped + out.size() - initial;
}

void MatchProgram::search_eclass(const EGraph& g, EClassId c, Matches& out,
                                 std::size_t limit) const {
  out.layout = &layout_;
  State s(g, out, limit);
  if (limit == 0 || !resolve_grounds(g, s)) return;
  s.size_registers(n_regs_, n_pregs_);
  s.regs[0] = g.find(c);
  std::size_t before = out.size();
  run(s, 1, s.grounds_newest);  // code_[0] is the root's Scan
  if (has_any_) dedup_from(out, before);
}

std::string MatchProgram::to_string() const {
  std::string out;
  for (const Instr& in : code_) {
    switch (in.kind) {
      case Kind::Scan:
        out += "scan " + std::string(in.op.name()) + " -> r" + std::to_string(in.reg);
        break;
      case Kind::ScanAll:
        out += "scan all -> r" + std::to_string(in.reg);
        break;
      case Kind::Bind:
        out += "bind r" + std::to_string(in.reg) + " " + std::string(in.op.name()) + "/" +
               std::to_string(in.arity) + " -> r" + std::to_string(in.other);
        break;
      case Kind::Compare:
        out += "compare r" + std::to_string(in.reg) + " r" + std::to_string(in.other);
        break;
      case Kind::Ground:
        out += "ground r" + std::to_string(in.reg) + " #" + std::to_string(in.other);
        break;
    }
    out += '\n';
  }
  return out;
}

}  // namespace eqsat::egraph
