// Compiled e-matching (egg's matching machine): a pattern or multi-pattern
// becomes a short program of instructions over registers holding e-classes.
// `Scan` visits only the classes holding the root operator (the e-graph's
// per-operator index); `Bind` walks the e-nodes of a class with a given
// operator (a range of the class's sorted e-nodes) and loads their children
// into registers; `Compare` checks a repeated variable; `Ground` checks a
// variable-free subterm against its class, looked up once per search.
// Payload constraints are checked in `Bind`. A search reads only the
// e-graph's snapshot of its last rebuild (see egraph.hpp): it finds the same
// matches before and after adds and merges, until the next rebuild.
#pragma once

#include "egraph/egraph.hpp"
#include "egraph/pattern.hpp"
#include "egraph/subst.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace eqsat::egraph {

class MatchProgram {
 public:
  // Compiles a single pattern; its root is the match's root.
  explicit MatchProgram(const Pattern& pattern);
  // Compiles a multi-pattern; the first part's root is the match's root.
  explicit MatchProgram(const MultiPattern& pattern);

  const VarLayout& layout() const { return layout_; }

  // Appends to `out` the matches in the whole e-graph, in increasing root
  // order, and returns how many it found; stops after `limit`. With a
  // `sink`, whenever `out` holds kBatch matches or more (at a root
  // boundary) they are handed to the sink and cleared, so a caller may
  // apply matches while the search goes on; what is left at the end stays
  // in `out`. Matches whose e-nodes (and ground terms' e-nodes) all have
  // stamps <= `seen_through` (EGraph::node_stamp: matches that snapshot
  // already held) are counted but not written (and added to `*skipped`);
  // only for programs that skips_seen() (else an InternalError).
  std::size_t search(const EGraph& g, Matches& out,
                     std::size_t limit = std::numeric_limits<std::size_t>::max(),
                     const MatchSink* sink = nullptr, std::uint32_t seen_through = 0,
                     std::size_t* skipped = nullptr) const;
  // Whether the stamps of a match's e-nodes tell a match seen before: not
  // with `any` payloads (two e-nodes may give one match, which is written
  // once). A lone variable's match, a class, counts as seen when one of the
  // class's e-nodes was there, in it, in that snapshot (the class was, and
  // a pattern instantiated with it then is in it now).
  bool skips_seen() const { return !has_any_; }
  static constexpr std::size_t kBatch = 4096;
  // The same, for matches rooted at class c only (single patterns; for a
  // multi-pattern, the first part's root).
  void search_eclass(const EGraph& g, EClassId c, Matches& out,
                     std::size_t limit = std::numeric_limits<std::size_t>::max()) const;

  // One instruction per line, for debugging.
  std::string to_string() const;

 private:
  enum class Kind : std::uint8_t { Scan, ScanAll, Bind, Compare, Ground };
  struct Instr {
    explicit Instr(Kind k) : kind(k) {}
    Kind kind;
    PayloadMatch::Kind payload_kind = PayloadMatch::Kind::Exact;
    bool payload_first = false;  // a payload variable's first occurrence
    std::uint32_t reg = 0;       // Bind/Compare/Ground: register read; Scan: written
    std::uint32_t other = 0;     // Bind: first output register; Compare: register; Ground: index
    std::uint32_t arity = 0;
    Symbol op;
    Payload payload = 0;  // Exact value or payload register
  };
  struct GroundTerm {  // a variable-free subterm, resolved per search
    std::uint32_t pattern;
    std::uint32_t node;
  };
  struct State;

  void compile_part(const Pattern& p, std::uint32_t root_reg, bool scan,
                    std::vector<std::uint32_t>& var_reg, std::vector<std::uint32_t>& pvar_reg,
                    const std::vector<std::uint32_t>& var_global,
                    const std::vector<std::uint32_t>& pvar_global);
  bool resolve_grounds(const EGraph& g, State& s) const;
  // Runs code_[pc...]; `newest` is the largest stamp of the e-nodes bound so far.
  void run(State& s, std::size_t pc, std::uint32_t newest) const;
  // Writes the match in the registers, or counts it as seen (by `newest`).
  void emit(State& s, std::uint32_t newest) const;
  // The oldest stamp of class c's e-nodes in the snapshot (the largest
  // stamp when it has none): a lone variable's match's stamp.
  static std::uint32_t class_stamp(const EGraph& g, EClassId c);
  void dedup_from(Matches& m, std::size_t begin) const;
  void finish_layout(const std::vector<std::uint32_t>& var_reg,
                     const std::vector<std::uint32_t>& pvar_reg);

  std::vector<Pattern> patterns_;  // owned copies, for ground terms
  std::vector<Instr> code_;
  std::vector<GroundTerm> grounds_;
  VarLayout layout_;
  std::vector<std::uint32_t> var_regs_;   // register of each layout variable
  std::vector<std::uint32_t> pvar_regs_;  // payload register of each payload variable
  std::uint32_t n_regs_ = 1;
  std::uint32_t n_pregs_ = 0;
  bool has_any_ = false;  // some Bind accepts any payload: dedup per root
};

}  // namespace eqsat::egraph
