#include "egraph/egraph.hpp"

#include "egraph/growth.hpp"
#include "egraph/sort_by_content.hpp"
#include "egraph/sorted_runs.hpp"
#include "support/internal_error.hpp"

#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace eqsat::egraph {

using ChildBuffer = absl::InlinedVector<EClassId, 8>;

struct EGraph::Key {
  Symbol op;
  Payload payload;
  std::span<const EClassId> children;
  std::size_t hash;
};

struct EGraph::MemoHash {
  using is_transparent = void;
  const EGraph* g;
  std::size_t operator()(ENodeId n) const { return g->hash_of(n); }
  std::size_t operator()(const Key& k) const { return k.hash; }
};

struct EGraph::MemoEq {
  using is_transparent = void;
  const EGraph* g;
  // Inline, as every hash-cons hit and re-keyed e-node compares.
  bool operator()(ENodeId a, const Key& k) const {
    const NodeRecord& r = g->records_[a.index()];
    if (r.op != k.op.id() || r.payload != k.payload || r.arity != k.children.size()) return false;
    const EClassId* kids = g->kids(r);
    for (std::size_t i = 0; i < k.children.size(); ++i)
      if (kids[i] != k.children[i]) return false;
    return true;
  }
  bool operator()(ENodeId a, ENodeId b) const {
    if (a == b) return true;
    const NodeRecord& r = g->records_[b.index()];
    return (*this)(a, Key{Symbol::from_id_unchecked(r.op), r.payload, {g->kids(r), r.arity}, 0});
  }
  bool operator()(const Key& k, ENodeId a) const { return (*this)(a, k); }
};

// The hash-cons starts with 4,095 slots (about 20 KiB, room for 3,584
// e-nodes): a saturating run's table would otherwise rehash its e-nodes
// again and again on the way up from one slot (integ_part2: 3% of its
// instructions).
struct EGraph::Memo {
  explicit Memo(const EGraph* g) : set(4095, MemoHash{g}, MemoEq{g}) {}
  absl::flat_hash_set<ENodeId, MemoHash, MemoEq> set;
};

EGraph::EGraph(std::unique_ptr<Analysis> analysis, Explanations explanations)
    : analysis_(std::move(analysis)),
      proofs_(explanations == Explanations::On ? std::make_unique<ProofForest>() : nullptr),
      reason_("asserted"),
      memo_(std::make_unique<Memo>(this)) {
  if (analysis_) analysis_->attach(this);
}

EGraph::~EGraph() = default;

std::size_t EGraph::hashcons_size() const {
  return memo_->set.size();
}

std::span<const EClassId> EGraph::classes_with_op(Symbol op) const {
  if (op.id() >= by_op_.size()) return {};
  return by_op_[op.id()];
}

void EGraph::bad_id(EClassId c, const char* where) const {
  EQSAT_ASSERT(c.index() < uf_.size())  // false: the message names the check
      << where << ": e-class id "
      << (c.valid() ? std::to_string(c.value()) : std::string("(invalid)"))
      << " is not in this e-graph";
}

// The hash-cons probe, inline in `add`: most adds of a saturating run find
// their e-node, and that path stays free of the new e-node's book-keeping.
[[gnu::always_inline]] inline EClassId EGraph::add_canonical(Symbol op, Payload payload,
                                                             std::span<const EClassId> canon,
                                                             std::span<const EClassId> children) {
  EQSAT_ASSERT(op.valid()) << "EGraph::add: an e-node needs an operator symbol";
  // One probe: a miss claims the slot for the new e-node's id right away
  // (its record is pushed in add_fresh, before anything reads the hash-cons).
  const ENodeId n(static_cast<std::uint32_t>(records_.size()));
  bool fresh = false;
  auto it = memo_->set.lazy_emplace(Key{op, payload, canon, hash_enode(op, payload, canon)},
                                    [&](const auto& construct) {
                                      fresh = true;
                                      construct(n);
                                    });
  if (fresh) return add_fresh(n, op, payload, canon, children);
  if (proofs_) [[unlikely]]
    return term_for_hit(*it, op, payload, children);
  return find(records_[it->index()].cls);
}

EClassId EGraph::add(Symbol op, Payload payload, std::span<const EClassId> children) {
  // Up to two children (nearly every e-node) canonicalize into a two-id
  // array: a wider one on the stack costs the hot path its initialization
  // and a larger frame.
  if (children.size() > kInline) [[unlikely]]
    return add_wide(op, payload, children);
  EClassId canon[kInline];
  for (std::size_t i = 0; i < children.size(); ++i) {
    check_id(children[i], "EGraph::add");
    canon[i] = uf_.find_compress(children[i]);
  }
  return add_canonical(op, payload, std::span<const EClassId>(canon, children.size()), children);
}

EClassId EGraph::add_wide(Symbol op, Payload payload, std::span<const EClassId> children) {
  // The canonical children: on the stack for usual arities, on the heap
  // beyond.
  constexpr std::size_t kStack = 8;
  if (children.size() > kStack) {
    std::vector<EClassId> canon(children.size());
    for (std::size_t i = 0; i < children.size(); ++i) {
      check_id(children[i], "EGraph::add");
      canon[i] = uf_.find_compress(children[i]);
    }
    return add_canonical(op, payload, canon, children);
  }
  EClassId canon[kStack];
  for (std::size_t i = 0; i < children.size(); ++i) {
    check_id(children[i], "EGraph::add");
    canon[i] = uf_.find_compress(children[i]);
  }
  return add_canonical(op, payload, std::span<const EClassId>(canon, children.size()), children);
}

EClassId EGraph::add_fresh(ENodeId n, Symbol op, Payload payload, std::span<const EClassId> canon,
                           std::span<const EClassId> children) {
  EClassId c = uf_.make_set();
  if (proofs_) [[unlikely]]
    proofs_->add_term(c, op, payload, children);
  NodeRecord r{};
  r.payload = payload;
  r.op = op.id();
  r.arity = static_cast<std::uint32_t>(canon.size());
  if (canon.size() <= kInline) {
    std::copy(canon.begin(), canon.end(), r.inline_kids);
  } else {
    r.first_child = static_cast<std::uint32_t>(children_.size());
    children_.insert(children_.end(), canon.begin(), canon.end());
  }
  r.cls = c;
  r.stamp = snapshot_number_ + 1;
  reserve_one_more(records_);
  reserve_one_more(slot_);
  reserve_one_more(touched_flag_);
  records_.push_back(r);
  if (free_slots_.empty()) {
    reserve_one_more(classes_);
    slot_.push_back(static_cast<std::uint32_t>(classes_.size()));
    classes_.emplace_back();
  } else {
    slot_.push_back(free_slots_.back());
    free_slots_.pop_back();
  }
  touched_flag_.push_back(0);
  cls(c).nodes.push_back(n);
  for (EClassId child : canon) {
    IdList<ENodeId>& ps = cls(child).parents;
    if (ps.empty() || ps.back() != n) ps.push_back(n);
  }
  ++num_classes_;
  ++num_visible_;
  ++version_;
  clean_ = false;
  if (analysis_) {
    analysis_->on_make(*this, c, node(n));
    analysis_->on_modify(*this, c);
  }
  return proofs_ ? c : find(c);
}

EClassId EGraph::term_for_hit(ENodeId m, Symbol op, Payload payload,
                              std::span<const EClassId> children) {
  const EClassId cm = records_[m.index()].cls;  // the id m was added with: its term
  if (proofs_->op(cm) == op && proofs_->payload(cm) == payload &&
      std::ranges::equal(proofs_->children(cm), children))
    return cm;
  if (std::optional<EClassId> t = proofs_->find_term(op, payload, children)) return *t;
  // A new term equal to m's by congruence: an id in m's class, without an
  // e-node of its own.
  const EClassId root = uf_.find_compress(cm);
  const EClassId u = uf_.make_set();
  slot_.push_back(slot_[root.index()]);
  touched_flag_.push_back(0);
  uf_.link(root, u);
  if (clean_) snapshot_root_.push_back(root);  // adds no e-node: the snapshot stays valid
  proofs_->add_term(u, op, payload, children);
  proofs_->add_edge(u, cm, congruence_reason());
  return u;
}

std::vector<ProofStep> EGraph::explain(EClassId a, EClassId b) const {
  EQSAT_ASSERT(proofs_) << "EGraph::explain: explanations are off";
  check_id(a, "EGraph::explain");
  check_id(b, "EGraph::explain");
  EQSAT_ASSERT(find(a) == find(b)) << "EGraph::explain: the terms are not in one e-class";
  return proofs_->explain(a, b);
}

EClassId EGraph::add_expr(const RecExpr& expr) {
  EQSAT_ASSERT(!expr.empty()) << "EGraph::add_expr: empty expression";
  std::vector<EClassId> ids(expr.size());
  ChildBuffer kids;
  for (std::size_t i = 0; i < expr.size(); ++i) {
    kids.clear();
    for (std::uint32_t c : expr.children(i)) kids.push_back(ids[c]);
    const RecExpr::Node& n = expr.node(i);
    ids[i] = add(n.op, n.payload, kids);
  }
  return find(ids.back());
}

std::optional<EClassId> EGraph::lookup(Symbol op, Payload payload,
                                       std::span<const EClassId> children) const {
  ChildBuffer canon(children.begin(), children.end());
  for (EClassId& c : canon) {
    check_id(c, "EGraph::lookup");
    c = find(c);
  }
  Key key{op, payload, canon, hash_enode(op, payload, canon)};
  auto it = memo_->set.find(key);
  if (it == memo_->set.end()) return std::nullopt;
  return find(records_[it->index()].cls);
}

std::optional<EClassId> EGraph::lookup_in_snapshot(Symbol op, Payload payload,
                                                   std::span<const EClassId> children,
                                                   std::uint32_t* stamp) const {
  // Hash-cons entries of e-nodes that existed at the last rebuild keep their
  // keys until the next rebuild (only `repair` re-keys).
  auto it = memo_->set.find(Key{op, payload, children, hash_enode(op, payload, children)});
  if (it == memo_->set.end() || it->index() >= snapshot_nodes_) return std::nullopt;
  if (stamp) *stamp = records_[it->index()].stamp;
  return snapshot_root_[records_[it->index()].cls.index()];
}

std::optional<EClassId> EGraph::lookup_expr(const RecExpr& expr) const {
  if (expr.empty()) return std::nullopt;
  std::vector<EClassId> ids(expr.size());
  ChildBuffer kids;
  for (std::size_t i = 0; i < expr.size(); ++i) {
    kids.clear();
    for (std::uint32_t c : expr.children(i)) kids.push_back(ids[c]);
    const RecExpr::Node& n = expr.node(i);
    std::optional<EClassId> id = lookup(n.op, n.payload, kids);
    if (!id) return std::nullopt;
    ids[i] = *id;
  }
  return ids.back();
}

void EGraph::queue_analysis(std::span<const ENodeId> nodes) {
  for (ENodeId n : nodes) {
    NodeRecord& r = records_[n.index()];
    if (!r.queued && !r.dead) {
      r.queued = 1;
      analysis_pending_.push_back(n);
    }
  }
}

bool EGraph::merge(EClassId a, EClassId b, Symbol why) {
  const Symbol outer = std::exchange(reason_, why);
  const bool merged = merge(a, b);
  reason_ = outer;
  return merged;
}

bool EGraph::merge_roots(EClassId term_a, EClassId term_b, EClassId a, EClassId b) {
  if (proofs_) [[unlikely]]
    proofs_->add_edge(term_a, term_b, reason_);
  // The class with more parents stays the root: fewer e-nodes to repair.
  if (cls(a).parents.size() < cls(b).parents.size()) std::swap(a, b);
  uf_.link(a, b);
  --num_classes_;
  ++version_;
  clean_ = false;
  EClass& root = cls(a);
  EClass& other = cls(b);
  pending_.insert(pending_.end(), other.parents.begin(), other.parents.end());
  if (analysis_) {
    DidMerge d = analysis_->on_merge(a, b);
    if (d.a_changed) queue_analysis(root.parents);
    if (d.b_changed) queue_analysis(other.parents);
  }
  // b's e-nodes move to another class: matches through them are new.
  for (ENodeId n : other.nodes) records_[n.index()].stamp = snapshot_number_ + 1;
  root.nodes.append(other.nodes);
  root.parents.append(other.parents);
  other.nodes.release();
  other.parents.release();
  free_slots_.push_back(slot_[b.index()]);
  touch(a, kNodesChanged | kParentsMerged);
  if (analysis_) analysis_->on_modify(*this, a);
  return true;
}

std::size_t EGraph::prune(EClassId c, const std::function<bool(const ENodeRef&)>& keep) {
  check_id(c, "EGraph::prune");
  c = uf_.find_compress(c);
  IdList<ENodeId>& nodes = cls(c).nodes;
  std::size_t hidden = 0;
  // Dead e-nodes (congruent duplicates, which the next rebuild drops from
  // their touched class anyway) go too: an analysis may prune one class on
  // every merge into it during a rebuild (egg's constant folding), and
  // would otherwise walk its growing list of dead e-nodes each time.
  ENodeId* end = std::remove_if(nodes.begin(), nodes.end(), [&](ENodeId n) {
    NodeRecord& r = records_[n.index()];
    if (r.dead) return true;
    if (r.pruned || keep(node(n))) return false;
    r.pruned = 1;
    ++hidden;
    return true;
  });
  nodes.truncate(static_cast<std::uint32_t>(end - nodes.begin()));
  if (hidden > 0) {
    num_visible_ -= hidden;
    ++version_;
    clean_ = false;
    touch(c, kNodesChanged);
  }
  return hidden;
}

void EGraph::repair(ENodeId n, std::size_t& unions) {
  {
    NodeRecord& r = records_[n.index()];
    if (r.dead) return;
    EClassId* ch = kids(r);
    bool stale = false;
    for (std::uint32_t i = 0; i < r.arity && !stale; ++i) stale = uf_.find(ch[i]) != ch[i];
    if (!stale) return;
    memo_->set.erase(n);  // found by its old content, which it still has
    for (std::uint32_t i = 0; i < r.arity; ++i) ch[i] = uf_.find_compress(ch[i]);
    r.stamp = snapshot_number_ + 1;
    touch(r.cls, kNodesChanged);  // its class's sort order may have changed
  }
  auto [it, inserted] = memo_->set.insert(n);
  if (inserted) return;
  // Congruent to e-node m: n dies, their classes merge.
  ENodeId m = *it;
  NodeRecord& r = records_[n.index()];
  NodeRecord& rm = records_[m.index()];
  r.dead = 1;
  if (!r.pruned) {
    if (rm.pruned) {  // the content stays visible through m
      rm.pruned = 0;
      rm.stamp = snapshot_number_ + 1;
      EClassId cm = uf_.find_compress(rm.cls);
      cls(cm).nodes.push_back(m);
      touch(cm, kNodesChanged);
    } else {
      --num_visible_;
    }
  }
  const EClassId* ch = kids(r);
  for (std::uint32_t i = 0; i < r.arity; ++i)
    touch(ch[i], kParentDied);  // their parent lists hold n
  EClassId cn = r.cls, cm = rm.cls;
  if (proofs_ ? merge(cn, cm, congruence_reason()) : merge(cn, cm)) ++unions;
}

std::size_t EGraph::rebuild() {
  EQSAT_ASSERT(!rebuilding_) << "EGraph::rebuild called from an analysis's modify";
  rebuilding_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{rebuilding_};
  std::size_t unions = 0;
  while (!pending_.empty() || !analysis_pending_.empty()) {
    while (!pending_.empty()) {
      ENodeId n = pending_.back();
      pending_.pop_back();
      repair(n, unions);
    }
    while (!analysis_pending_.empty() && pending_.empty()) {
      ENodeId n = analysis_pending_.back();
      analysis_pending_.pop_back();
      NodeRecord& r = records_[n.index()];
      r.queued = 0;
      if (r.dead) continue;
      EClassId c = uf_.find_compress(r.cls);
      if (analysis_->on_join_node(*this, c, node(n))) {
        queue_analysis(cls(c).parents);
        analysis_->on_modify(*this, c);
      }
    }
  }
  normalize_touched();
  rebuild_index();
  clean_ = true;
#ifdef EQSAT_CHECK_INVARIANTS
  check_invariants();
#endif
  return unions;
}

bool EGraph::less_by_content(ENodeId a, ENodeId b) const {
  const NodeRecord& x = records_[a.index()];
  const NodeRecord& y = records_[b.index()];
  if (x.op != y.op) return x.op < y.op;
  if (x.payload != y.payload) return x.payload < y.payload;
  if (x.arity != y.arity) return x.arity < y.arity;
  const EClassId* cx = kids(x);
  const EClassId* cy = kids(y);
  for (std::uint32_t i = 0; i < x.arity; ++i) {
    if (cx[i] != cy[i]) return cx[i] < cy[i];
  }
  return a < b;
}

void EGraph::normalize_touched() {
  static_assert(kInline == 2, "sort_by_content reads two inline children");
  std::vector<ContentKey> keys;
  // Each class is normalized on its own, so the order does not matter. The
  // flags of the ids touched are gathered on their roots (each root once),
  // and a class's e-node list is only sorted, its parent list only filtered
  // or sorted, when something changed it: most touches come from a
  // repaired e-node, which changes its own class's order only.
  touched_what_.resize(touched_.size());
  for (std::size_t i = 0; i < touched_.size(); ++i) {
    std::uint8_t& f = touched_flag_[touched_[i].index()];
    touched_what_[i] = f & ~kListed;
    f = 0;
  }
  for (std::size_t i = 0; i < touched_.size(); ++i) {
    EClassId& c = touched_[i];
    c = uf_.find_compress(c);
    std::uint8_t& f = touched_flag_[c.index()];
    if (f & kListed) c = EClassId();  // a duplicate root
    f |= kListed | touched_what_[i];
  }
  for (EClassId c : touched_) {
    if (!c.valid()) continue;
    const std::uint8_t what = touched_flag_[c.index()];
    touched_flag_[c.index()] = 0;
    EClass& cl = cls(c);
    if (what & kNodesChanged) {
      ENodeId* end = std::remove_if(cl.nodes.begin(), cl.nodes.end(),
                                    [&](ENodeId n) { return !visible(records_[n.index()]); });
      sort_by_content(cl.nodes.begin(), end, records_, keys,
                      [&](ENodeId a, ENodeId b) { return less_by_content(a, b); });
      end = std::unique(cl.nodes.begin(), end);
      cl.nodes.truncate(static_cast<std::uint32_t>(end - cl.nodes.begin()));
      cl.nodes.shrink_if_sparse();
    }
    if (what & (kParentDied | kParentsMerged)) {
      // Only a death leaves a dead e-node in a parent list (the dead e-node
      // touches its children), so only then are the records read.
      ENodeId* end = cl.parents.end();
      if (what & kParentDied)
        end = std::remove_if(cl.parents.begin(), end,
                             [&](ENodeId n) { return records_[n.index()].dead != 0; });
      if (what & kParentsMerged) {
        sort_runs(cl.parents.begin(), end, std::less<ENodeId>(), merge_scratch_);
        end = std::unique(cl.parents.begin(), end);
      }
      cl.parents.truncate(static_cast<std::uint32_t>(end - cl.parents.begin()));
      cl.parents.shrink_if_sparse();
    }
  }
  touched_.clear();
  merge_scratch_ = {};  // as large as the longest parent run: not kept between rebuilds
}

void EGraph::rebuild_index() {
  uf_.flatten();
  for (std::vector<EClassId>& v : by_op_) v.clear();
  live_classes_.clear();
  live_classes_.reserve(num_classes_);
  const std::uint32_t ids = static_cast<std::uint32_t>(uf_.size());
  if (packed_at_.capacity() < ids) packed_at_.reserve(ids);  // exactly: resize would double
  packed_at_.resize(ids);
  if (snapshot_root_.capacity() < ids) snapshot_root_.reserve(ids + ids / 2);
  snapshot_root_.resize(ids);
  packed_.clear();
  packed_.reserve(num_classes_ + (kPackedHeader + 2) * num_visible_);
  packed_.push_back(0);  // offset 0: an empty class
  // One pass over the ids (flattened: find is one step): roots, offsets and
  // each canonical class's words, written through a pointer once the
  // class's size is known.
  for (std::uint32_t i = 0; i < ids; ++i) {
    const EClassId c(i);
    const EClassId root = uf_.find(c);
    snapshot_root_[i] = root;
    if (root != c) {
      packed_at_[i] = 0;
      continue;
    }
    live_classes_.push_back(c);
    const IdList<ENodeId>& nodes = cls(c).nodes;
    std::size_t words = 1;
    for (ENodeId n : nodes) words += kPackedHeader + records_[n.index()].arity;
    const std::size_t header = packed_.size();
    packed_at_[i] = static_cast<std::uint32_t>(header);
    packed_.resize(header + words);
    std::uint32_t* out = packed_.data() + header;
    *out++ = static_cast<std::uint32_t>(words - 1);
    std::uint32_t prev = 0;  // no e-node has the empty symbol
    for (ENodeId n : nodes) {
      const NodeRecord& r = records_[n.index()];
      out[0] = r.op;
      out[1] = r.arity;
      out[2] = static_cast<std::uint32_t>(r.payload);
      out[3] = static_cast<std::uint32_t>(r.payload >> 32);
      out[4] = r.stamp;
      const EClassId* k = kids(r);
      for (std::uint32_t j = 0; j < r.arity; ++j) out[kPackedHeader + j] = k[j].value();
      out += kPackedHeader + r.arity;
      if (r.op == prev) continue;
      prev = r.op;
      if (r.op >= by_op_.size()) by_op_.resize(r.op + 1);
      by_op_[r.op].push_back(c);
    }
  }
  snapshot_nodes_ = records_.size();
  ++snapshot_number_;
}

// Kept whole (~100 lines): a flat list of independent checks, read top to
// bottom, sharing the tallies (live e-nodes, expected parents and operator
// index) that later checks compare against.
void EGraph::check_invariants() const {
  auto fail = [](const std::string& what) {
    EQSAT_ASSERT(false) << "e-graph invariant violated: " << what;
  };
  if (!clean_ || !pending_.empty() || !analysis_pending_.empty()) fail("not rebuilt");
  // Hash-cons: every live e-node, canonical, under its current content.
  std::size_t live = 0, visible_count = 0;
  std::map<std::tuple<std::uint32_t, Payload, std::vector<EClassId>>, EClassId> content;
  std::vector<std::vector<ENodeId>> expect_parents(uf_.size());
  for (std::uint32_t i = 0; i < records_.size(); ++i) {
    const NodeRecord& r = records_[i];
    if (r.dead) continue;
    ++live;
    if (!r.pruned) ++visible_count;
    ENodeRef ref = node(ENodeId(i));
    for (EClassId c : ref.children) {
      if (find(c) != c) fail("e-node " + std::to_string(i) + " has a non-canonical child");
    }
    auto it = memo_->set.find(
        Key{ref.op, ref.payload, ref.children, hash_enode(ref.op, ref.payload, ref.children)});
    if (it == memo_->set.end() || *it != ENodeId(i)) {
      fail("e-node " + std::to_string(i) + " is not in the hash-cons under its content");
    }
    std::vector<EClassId> kids(ref.children.begin(), ref.children.end());
    auto [pos, fresh] = content.emplace(std::make_tuple(r.op, r.payload, kids), find(r.cls));
    if (!fresh) fail("two live e-nodes with the same content (congruence not closed)");
    for (EClassId c : ref.children) {
      std::vector<ENodeId>& ps = expect_parents[c.index()];
      if (ps.empty() || ps.back() != ENodeId(i)) ps.push_back(ENodeId(i));
    }
  }
  if (live != memo_->set.size()) fail("hash-cons size differs from the number of live e-nodes");
  if (visible_count != num_visible_) fail("visible e-node count is stale");
  // Classes.
  std::size_t roots = 0, listed = 0;
  std::vector<std::vector<EClassId>> expect_by_op(by_op_.size());
  // Slots: one per canonical class, the others free and empty.
  std::vector<std::uint8_t> slot_used(classes_.size(), 0);
  for (std::uint32_t s : free_slots_) {
    if (s >= classes_.size() || slot_used[s]) fail("a free class slot is listed twice");
    if (!classes_[s].nodes.empty() || !classes_[s].parents.empty())
      fail("a free class slot still lists e-nodes");
    slot_used[s] = 1;
  }
  for (std::uint32_t i = 0; i < uf_.size(); ++i) {
    if (find(EClassId(i)) != EClassId(i)) continue;
    if (slot_[i] >= classes_.size() || slot_used[slot_[i]]) fail("two classes share a slot");
    slot_used[slot_[i]] = 1;
  }
  if (std::count(slot_used.begin(), slot_used.end(), 0) != 0) fail("a class slot is lost");
  for (std::uint32_t i = 0; i < uf_.size(); ++i) {
    EClassId c(i);
    if (find(c) != c) continue;
    const EClass& cl = cls(c);
    if (roots >= live_classes_.size() || live_classes_[roots] != c) {
      fail("classes() does not list the canonical classes in order");
    }
    ++roots;
    listed += cl.nodes.size();
    for (std::size_t k = 0; k < cl.nodes.size(); ++k) {
      ENodeId n = cl.nodes[k];
      const NodeRecord& r = records_[n.index()];
      if (!visible(r)) fail("class " + std::to_string(i) + " lists a dead or pruned e-node");
      if (find(r.cls) != c) fail("class " + std::to_string(i) + " lists another class's e-node");
      if (k > 0 && !less_by_content(cl.nodes[k - 1], n)) {
        fail("e-nodes of class " + std::to_string(i) + " are not sorted by content");
      }
      if (k == 0 || r.op != records_[cl.nodes[k - 1].index()].op) {
        if (r.op >= expect_by_op.size()) fail("operator index misses an operator");
        expect_by_op[r.op].push_back(c);
      }
      if (analysis_ && !analysis_->agrees(*this, c, node(n))) {
        fail("analysis data of class " + std::to_string(i) + " disagrees with an e-node");
      }
    }
    if (!std::equal(cl.parents.begin(), cl.parents.end(), expect_parents[i].begin(),
                    expect_parents[i].end())) {
      fail("parents of class " + std::to_string(i) + " are not its live parent e-nodes");
    }
    std::vector<std::uint32_t> words;
    for (ENodeId n : cl.nodes) {
      const NodeRecord& r = records_[n.index()];
      words.insert(words.end(), {r.op, r.arity, static_cast<std::uint32_t>(r.payload),
                                 static_cast<std::uint32_t>(r.payload >> 32), r.stamp});
      for (EClassId k : children(n)) words.push_back(k.value());
    }
    std::span<const std::uint32_t> packed = packed_nodes(c);
    if (!std::equal(words.begin(), words.end(), packed.begin(), packed.end())) {
      fail("the e-matching snapshot of class " + std::to_string(i) + " is stale");
    }
  }
  if (snapshot_nodes_ != records_.size() || snapshot_root_.size() != uf_.size()) {
    fail("the e-matching snapshot is stale");
  }
  for (std::uint32_t i = 0; i < uf_.size(); ++i) {
    if (snapshot_root_[i] != find(EClassId(i))) fail("the snapshot's roots are stale");
  }
  if (roots != live_classes_.size() || roots != num_classes_) fail("class count is stale");
  if (listed != num_visible_) fail("classes do not list every visible e-node once");
  for (std::size_t op = 0; op < by_op_.size(); ++op) {
    if (by_op_[op] != expect_by_op[op])
      fail("operator index is stale for " +
           std::string(Symbol::from_id_unchecked(static_cast<std::uint32_t>(op)).name()));
  }
}

std::size_t EGraph::bytes() const {
  std::size_t b = records_.capacity() * sizeof(NodeRecord) + touched_flag_.capacity() +
                  children_.capacity() * sizeof(EClassId) + classes_.capacity() * sizeof(EClass) +
                  (slot_.capacity() + free_slots_.capacity()) * sizeof(std::uint32_t) +
                  memo_->set.capacity() * (sizeof(ENodeId) + 1) + uf_.bytes() +
                  live_classes_.capacity() * sizeof(EClassId) +
                  (packed_at_.capacity() + packed_.capacity()) * sizeof(std::uint32_t) +
                  snapshot_root_.capacity() * sizeof(EClassId);
  for (const EClass& c : classes_) {
    b += c.nodes.heap_bytes() + c.parents.heap_bytes();
  }
  for (const std::vector<EClassId>& v : by_op_) b += v.capacity() * sizeof(EClassId);
  if (analysis_) b += analysis_->bytes();
  if (proofs_) b += proofs_->bytes();
  return b;
}

std::string EGraph::dump() const {
  std::string out;
  for (EClassId c : live_classes_) {
    out += 'c';
    out += std::to_string(c.value());
    out += ':';
    for (ENodeId n : nodes(c)) {
      ENodeRef r = node(n);
      out += " (";
      out += Syntax::standard().print(r.op, r.payload);
      for (EClassId k : r.children) {
        out += " c";
        out += std::to_string(k.value());
      }
      out += ")";
    }
    out += "\n";
  }
  return out;
}

}  // namespace eqsat::egraph
