// EGraph: the e-graph of equality saturation. It stores e-classes of
// equivalent e-nodes, with a hash-cons so that each e-node (operator,
// payload, canonical children) exists once, and restores congruence lazily
// (egg's deferred rebuilding): `add` and `merge` only record work, `rebuild`
// repairs the parents of merged classes from a worklist until the hash-cons
// is canonical and congruence-closed again. An optional analysis (see
// analysis.hpp) keeps a value per e-class.
//
//   EGraph g;
//   EClassId a = g.add(Symbol("a")), b = g.add(Symbol("b"));
//   EClassId fa = g.add(Symbol("f"), 0, {a}), fb = g.add(Symbol("f"), 0, {b});
//   g.merge(a, b);
//   g.rebuild();                          // congruence: f(a) = f(b)
//   assert(g.find(fa) == g.find(fb));
//   for (EClassId c : g.classes())         // canonical classes, by id
//     for (ENodeId n : g.nodes(c)) g.node(n).op;  // e-nodes sorted by content
//
// Invariants, which hold after `rebuild()` (checked by `check_invariants()`,
// run after every rebuild when EQSAT_CHECK_INVARIANTS is defined):
//  - every live e-node is in the hash-cons exactly once, under its current
//    content, and its children are canonical; no two live e-nodes are equal
//    (so the e-graph is congruence-closed);
//  - `nodes(c)` lists the visible e-nodes of canonical class c, sorted by
//    content (operator, payload, children); `parents(c)` the live e-nodes
//    that have c as a child, by id; `classes_with_op(op)` the canonical
//    classes holding an e-node with that operator, by id;
//  - the analysis data of each class agrees with each of its e-nodes;
//  - the e-matching snapshot (packed e-nodes, roots) is that of this state.
// Queries that list classes or nodes (`classes`, `nodes`, `parents`,
// `classes_with_op`) are only meaningful when the e-graph is clean.
//
// E-matching reads only a snapshot taken by the last rebuild: `classes()`,
// `classes_with_op`, `packed_nodes` and `lookup_in_snapshot`, which adds and
// merges leave alone until the next rebuild. So a runner may apply one
// rule's matches before searching the next rule and still find exactly what
// a search of the iteration's starting e-graph finds (egg's semantics).
//
// Ids are deterministic: the same sequence of calls gives the same ids.
// Not thread-safe.
//
// Explanations (explain.hpp), off by default, are chosen at construction:
// with them on, `add` returns the id of exactly the term asked for (not
// always canonical: `find` it), every merge records its reason (the one
// passed, else `reason()`, which a runner sets to each rule's name) and
// `explain(a, b)` gives the rewrite steps between two terms. Off, nothing
// is recorded.
#pragma once

#include "egraph/analysis.hpp"
#include "egraph/enode.hpp"
#include "egraph/explain.hpp"
#include "egraph/id.hpp"
#include "egraph/id_list.hpp"
#include "egraph/rec_expr.hpp"
#include "egraph/symbol.hpp"
#include "egraph/union_find.hpp"

#include <algorithm>  // includers relied on it when abseil's tables were in this header
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace eqsat::egraph {

class EGraph {
 public:
  // An e-graph with the given analysis (none when null).
  explicit EGraph(std::unique_ptr<Analysis> analysis = nullptr,
                  Explanations explanations = Explanations::Off);
  ~EGraph();
  EGraph(const EGraph&) = delete;
  EGraph& operator=(const EGraph&) = delete;

  // ---- building ----------------------------------------------------------

  // The class of the e-node (op, payload, children), adding it as a new
  // class if the hash-cons does not hold it yet. Children need not be
  // canonical. Calls the analysis's make and modify for a new class. With
  // explanations on, the id of the term op@payload(children) itself.
  // An id that is not of this e-graph, given to `add`, `lookup`, `merge` or
  // `prune`, is an InternalError (EQSAT_ASSERT, support/internal_error.hpp).
  EClassId add(Symbol op, Payload payload, std::span<const EClassId> children);
  EClassId add(Symbol op, Payload payload = 0, std::initializer_list<EClassId> children = {}) {
    return add(op, payload, std::span<const EClassId>(children.begin(), children.size()));
  }
  // Adds every node of `expr` bottom-up; returns the class of its root.
  EClassId add_expr(const RecExpr& expr);
  // The class of an e-node / of a whole term, if present (no insertion).
  std::optional<EClassId> lookup(Symbol op, Payload payload,
                                 std::span<const EClassId> children) const;
  std::optional<EClassId> lookup_expr(const RecExpr& expr) const;

  // Asserts that a and b are equal, because of `why` (with explanations on;
  // `reason()` by default). Returns true when they were in different
  // classes. Congruence is restored by the next `rebuild`.
  // (Inline up to the roots: most merges a saturating run asks for find
  // both sides in one class already.)
  bool merge(EClassId a, EClassId b) {
    check_id(a, "EGraph::merge");
    check_id(b, "EGraph::merge");
    const EClassId ra = uf_.find_compress(a), rb = uf_.find_compress(b);
    return ra != rb && merge_roots(a, b, ra, rb);
  }
  bool merge(EClassId a, EClassId b, Symbol why);

  // The reason recorded for merges that name none (with explanations on):
  // "asserted" unless set. Returns the previous one.
  Symbol set_reason(Symbol why) { return std::exchange(reason_, why); }
  Symbol reason() const { return reason_; }

  // Hides every e-node of class c for which `keep` is false: it stays in
  // the hash-cons (adding it again gives c) but is no longer listed in
  // `nodes(c)`, matched or extracted (egg's pruning of constant-folded
  // classes). Returns how many e-nodes were hidden.
  std::size_t prune(EClassId c, const std::function<bool(const ENodeRef&)>& keep);

  // Restores the invariants; returns the number of merges it performed
  // (congruences found). Runs check_invariants() afterwards when
  // EQSAT_CHECK_INVARIANTS is defined. An analysis's modify must not call
  // it (InternalError).
  std::size_t rebuild();
  bool clean() const { return clean_; }

  // ---- queries -----------------------------------------------------------

  EClassId find(EClassId c) const { return uf_.find(c); }
  // Canonical classes in increasing id order.
  std::span<const EClassId> classes() const { return live_classes_; }
  // Visible e-nodes of class c (canonicalized), sorted by content.
  std::span<const ENodeId> nodes(EClassId c) const { return cls(find(c)).nodes; }
  // Live e-nodes having class c (canonicalized) as a child, by id.
  std::span<const ENodeId> parents(EClassId c) const { return cls(find(c)).parents; }
  // A dense number of the class of c, below num_slots(): a new class takes a
  // slot given back by a class merged away, or a new one, so per-class
  // storage indexed by slot holds live classes only (e-class ids keep
  // growing with every add). Analyses keep their data by slot.
  std::uint32_t slot(EClassId c) const { return slot_[find(c).index()]; }
  // The slot class id c had when it was last canonical: during a merge,
  // the slot of the class being merged away (given back right after).
  std::uint32_t slot_of_id(EClassId c) const { return slot_[c.index()]; }
  std::size_t num_slots() const { return classes_.size(); }
  // Canonical classes holding an e-node with operator `op`, by id.
  std::span<const EClassId> classes_with_op(Symbol op) const;
  // The class of (op, payload, children) as of the last rebuild, children
  // being classes of that snapshot; nullopt if it did not exist then. With
  // `stamp`, the e-node's stamp (node_stamp) is stored there.
  std::optional<EClassId> lookup_in_snapshot(Symbol op, Payload payload,
                                             std::span<const EClassId> children,
                                             std::uint32_t* stamp = nullptr) const;
  // Snapshots are numbered: the one a rebuild takes is one more than the
  // last (a new e-graph's, empty, is 0).
  std::uint32_t snapshot_number() const { return snapshot_number_; }
  // The first snapshot holding e-node n as it is now: with its present
  // children, in its present class. Adding n (or showing it again after a
  // prune), a rebuild changing its children, and a merge moving it into
  // another class (the class merged away lends its e-nodes to the root)
  // each set it to the next snapshot's number. So an e-match whose e-nodes
  // all have stamps <= s was already there in snapshot s (the runner's
  // semi-naive skip, runner.hpp).
  std::uint32_t node_stamp(ENodeId n) const { return records_[n.index()].stamp; }
  // The visible e-nodes of canonical class c packed for e-matching, in the
  // order of nodes(c): per e-node the words [op id, arity, payload low 32
  // bits, payload high 32 bits, node_stamp, children...] (kPackedHeader
  // words before the children). Rebuilt by `rebuild`; only valid while the
  // e-graph is clean.
  static constexpr std::uint32_t kPackedHeader = 5;
  std::span<const std::uint32_t> packed_nodes(EClassId c) const {
    const std::uint32_t* p = packed_.data() + packed_at_[c.index()];
    return {p + 1, p[0]};
  }

  ENodeRef node(ENodeId n) const {
    const NodeRecord& r = records_[n.index()];
    return {Symbol::from_id_unchecked(r.op), r.payload, {kids(r), r.arity}};
  }
  Symbol op(ENodeId n) const { return Symbol::from_id_unchecked(records_[n.index()].op); }
  Payload payload(ENodeId n) const { return records_[n.index()].payload; }
  std::span<const EClassId> children(ENodeId n) const {
    const NodeRecord& r = records_[n.index()];
    return {kids(r), r.arity};
  }
  // The canonical class of e-node n.
  EClassId class_of(ENodeId n) const { return find(records_[n.index()].cls); }

  // Number of canonical classes.
  std::size_t num_classes() const { return num_classes_; }
  // Number of visible e-nodes (in classes); before a rebuild it may count
  // e-nodes that the rebuild will find to be duplicates.
  std::size_t num_nodes() const { return num_visible_; }
  // Number of hash-cons entries (visible and pruned live e-nodes).
  std::size_t hashcons_size() const;
  // Number of e-node ids and class ids ever handed out.
  std::size_t num_node_ids() const { return records_.size(); }
  std::size_t num_class_ids() const { return uf_.size(); }
  // Increases whenever an e-node is added, classes merge or nodes are pruned.
  std::uint64_t version() const { return version_; }

  Analysis* analysis() { return analysis_.get(); }
  const Analysis* analysis() const { return analysis_.get(); }
  // The analysis as its concrete type A (which it must be).
  template <class A>
  A& analysis() {
    return static_cast<A&>(*analysis_);
  }
  template <class A>
  const A& analysis() const {
    return static_cast<const A&>(*analysis_);
  }

  // ---- explanations (explain.hpp) ------------------------------------------

  bool explaining() const { return proofs_ != nullptr; }
  // The recorded terms and unions; null with explanations off.
  const ProofForest* proofs() const { return proofs_.get(); }
  // The steps turning term a into term b (ids as returned by `add`), which
  // must be in one class, explanations on (else an InternalError).
  std::vector<ProofStep> explain(EClassId a, EClassId b) const;

  // Checks every invariant listed above; throws an InternalError naming the
  // first one violated. The e-graph must be clean.
  void check_invariants() const;

  // Bytes of heap memory held by the e-graph (and its analysis).
  std::size_t bytes() const;

  // Every canonical class with its e-nodes, one per line, for debugging and
  // determinism checks: "c3: (f c1) (g@2 c1 c2)".
  std::string dump() const;

 private:
  // Up to kInline children are stored in the record itself (one cache line
  // to compare during a hash-cons probe), more in `children_`.
  static constexpr std::uint32_t kInline = 2;
  struct alignas(32) NodeRecord {  // aligned: one cache line per record
    Payload payload;
    std::uint32_t op;
    union {
      EClassId inline_kids[kInline];
      std::uint32_t first_child;
    };
    std::uint32_t arity : 29;
    std::uint32_t dead : 1;  // a duplicate found by rebuild; not in the hash-cons
    std::uint32_t pruned : 1;
    std::uint32_t queued : 1;  // in the analysis worklist
    EClassId cls;              // the class it was added to (find() it)
    std::uint32_t stamp;       // see node_stamp
  };
  struct EClass {
    IdList<ENodeId> nodes;
    IdList<ENodeId> parents;
  };
  // The hash-cons (an abseil flat_hash_set of e-node ids hashed and
  // compared by content), defined in egraph.cpp so that includers of this
  // header do not compile abseil's tables.
  struct Key;
  struct MemoHash;
  struct MemoEq;
  struct Memo;

  const EClass& cls(EClassId canonical) const { return classes_[slot_[canonical.index()]]; }
  EClass& cls(EClassId canonical) { return classes_[slot_[canonical.index()]]; }
  const EClassId* kids(const NodeRecord& r) const {
    return r.arity <= kInline ? r.inline_kids : children_.data() + r.first_child;
  }
  EClassId* kids(NodeRecord& r) {
    return r.arity <= kInline ? r.inline_kids : children_.data() + r.first_child;
  }
  std::size_t hash_of(ENodeId n) const {
    const NodeRecord& r = records_[n.index()];
    return hash_enode(Symbol::from_id_unchecked(r.op), r.payload, {kids(r), r.arity});
  }
  bool less_by_content(ENodeId a, ENodeId b) const;
  void queue_analysis(std::span<const ENodeId> nodes);
  // An InternalError naming `where` if c is not an id of this e-graph
  // (inline: add and merge check every id they are given).
  void check_id(EClassId c, const char* where) const {
    if (c.index() >= uf_.size()) [[unlikely]]
      bad_id(c, where);
  }
  [[gnu::cold, gnu::noinline]] void bad_id(EClassId c, const char* where) const;
  // `merge` of the distinct roots a and b of term_a and term_b (the ids
  // given, for explanations); always true.
  bool merge_roots(EClassId term_a, EClassId term_b, EClassId a, EClassId b);
  void repair(ENodeId n, std::size_t& unions);
  // `add` once the children are canonical (`canon`; `children` as given,
  // for explanations).
  EClassId add_canonical(Symbol op, Payload payload, std::span<const EClassId> canon,
                         std::span<const EClassId> children);
  // `add` of an e-node with more than kInline children (out of line).
  [[gnu::noinline]] EClassId add_wide(Symbol op, Payload payload,
                                      std::span<const EClassId> children);
  // `add` after the hash-cons claimed slot n for content it did not hold:
  // the new e-node's record, class and parent entries (out of line).
  [[gnu::noinline]] EClassId add_fresh(ENodeId n, Symbol op, Payload payload,
                                       std::span<const EClassId> canon,
                                       std::span<const EClassId> children);
  // `add` with explanations on, after the hash-cons found e-node m for the
  // canonical content: the id of exactly op@payload(children).
  EClassId term_for_hit(ENodeId m, Symbol op, Payload payload, std::span<const EClassId> children);
  // Lists class c for normalizing at the end of the rebuild; `what` says
  // which of its lists changed.
  static constexpr std::uint8_t kListed = 1, kNodesChanged = 2, kParentsMerged = 4, kParentDied = 8;
  // (Inline: merges and repairs touch one to three classes each.)
  void touch(EClassId c, std::uint8_t what) {
    if (!(touched_flag_[c.index()] & kListed)) touched_.push_back(c);
    touched_flag_[c.index()] |= kListed | what;
  }
  void normalize_touched();
  void rebuild_index();
  bool visible(const NodeRecord& r) const { return !r.dead && !r.pruned; }

  std::unique_ptr<Analysis> analysis_;
  std::unique_ptr<ProofForest> proofs_;  // with explanations on
  Symbol reason_;
  UnionFind uf_;
  std::vector<NodeRecord> records_;
  std::vector<EClassId> children_;          // children of e-nodes with more than kInline
  std::vector<std::uint8_t> touched_flag_;  // by class id: kListed (in touched_) | what changed
  std::vector<EClass> classes_;             // by slot
  std::vector<std::uint32_t> slot_;         // by class id: its slot while canonical
  std::vector<std::uint32_t> free_slots_;   // slots of classes merged away
  std::unique_ptr<Memo> memo_;
  std::vector<ENodeId> pending_;            // e-nodes whose children may be stale
  std::vector<ENodeId> analysis_pending_;   // e-nodes whose data must be re-joined
  std::vector<EClassId> touched_;           // classes whose lists need normalizing
  std::vector<std::uint8_t> touched_what_;  // normalize_touched's scratch
  std::vector<EClassId> live_classes_;
  std::vector<std::vector<EClassId>> by_op_;  // by Symbol id
  std::vector<std::uint32_t> packed_at_;      // by class id: offset of its word count
  std::vector<std::uint32_t> packed_;         // see packed_nodes
  std::vector<EClassId> snapshot_root_;       // by class id: its root at the last rebuild
  std::size_t snapshot_nodes_ = 0;            // e-node ids that existed then
  std::uint32_t snapshot_number_ = 0;
  std::vector<ENodeId> merge_scratch_;  // sort_runs's
  std::size_t num_classes_ = 0;
  std::size_t num_visible_ = 0;
  std::uint64_t version_ = 0;
  bool clean_ = true;
  bool rebuilding_ = false;
};

}  // namespace eqsat::egraph
