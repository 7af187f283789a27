#include "egraph/egraph.hpp"

#include <absl/container/inlined_vector.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace eqsat::egraph {

using ChildBuffer = absl::InlinedVector<EClassId, 8>;

EGraph::EGraph(std::unique_ptr<Analysis> analysis)
    : analysis_(std::move(analysis)), memo_(0, MemoHash{this}, MemoEq{this}) {
  if (analysis_) analysis_->attach(this);
}

EGraph::~EGraph() = default;

bool EGraph::MemoEq::operator()(ENodeId a, ENodeId b) const {
  if (a == b) return true;
  return enode_equal(g->node(a), g->node(b));
}

bool EGraph::MemoEq::operator()(ENodeId a, const Key& k) const {
  const NodeRecord& r = g->records_[a.index()];
  if (r.hash != k.hash || r.op != k.op.id() || r.payload != k.payload ||
      r.arity != k.children.size()) {
    return false;
  }
  const EClassId* c = g->children_.data() + r.first_child;
  return std::equal(k.children.begin(), k.children.end(), c);
}

std::span<const EClassId> EGraph::classes_with_op(Symbol op) const {
  if (op.id() >= by_op_.size()) return {};
  return by_op_[op.id()];
}

EClassId EGraph::add(Symbol op, Payload payload, std::span<const EClassId> children) {
  ChildBuffer canon(children.begin(), children.end());
  for (EClassId& c : canon) c = uf_.find_compress(c);
  Key key{op, payload, canon, hash_enode(op, payload, canon)};
  if (auto it = memo_.find(key); it != memo_.end()) return find(records_[it->index()].cls);

  ENodeId n(static_cast<std::uint32_t>(records_.size()));
  EClassId c = uf_.make_set();
  NodeRecord r{};
  r.payload = payload;
  r.hash = key.hash;
  r.op = op.id();
  r.first_child = static_cast<std::uint32_t>(children_.size());
  r.arity = static_cast<std::uint32_t>(canon.size());
  r.cls = c;
  records_.push_back(r);
  children_.insert(children_.end(), canon.begin(), canon.end());
  classes_.emplace_back();
  classes_.back().nodes.push_back(n);
  for (EClassId child : canon) {
    std::vector<ENodeId>& ps = classes_[child.index()].parents;
    if (ps.empty() || ps.back() != n) ps.push_back(n);
  }
  memo_.insert(n);
  ++num_classes_;
  ++num_visible_;
  ++version_;
  clean_ = false;
  if (analysis_) {
    analysis_->on_make(*this, c, node(n));
    analysis_->on_modify(*this, c);
  }
  return find(c);
}

EClassId EGraph::add_expr(const RecExpr& expr) {
  if (expr.empty()) throw std::invalid_argument("EGraph::add_expr: empty expression");
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
  for (EClassId& c : canon) c = find(c);
  Key key{op, payload, canon, hash_enode(op, payload, canon)};
  auto it = memo_.find(key);
  if (it == memo_.end()) return std::nullopt;
  return find(records_[it->index()].cls);
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

bool EGraph::merge(EClassId a, EClassId b) {
  a = uf_.find_compress(a);
  b = uf_.find_compress(b);
  if (a == b) return false;
  // The class with more parents stays the root: fewer e-nodes to repair.
  if (classes_[a.index()].parents.size() < classes_[b.index()].parents.size()) std::swap(a, b);
  uf_.link(a, b);
  --num_classes_;
  ++version_;
  clean_ = false;
  EClass& root = classes_[a.index()];
  EClass& other = classes_[b.index()];
  pending_.insert(pending_.end(), other.parents.begin(), other.parents.end());
  if (analysis_) {
    DidMerge d = analysis_->on_merge(a, b);
    if (d.a_changed) queue_analysis(root.parents);
    if (d.b_changed) queue_analysis(other.parents);
  }
  root.nodes.insert(root.nodes.end(), other.nodes.begin(), other.nodes.end());
  root.parents.insert(root.parents.end(), other.parents.begin(), other.parents.end());
  std::vector<ENodeId>().swap(other.nodes);
  std::vector<ENodeId>().swap(other.parents);
  touched_.push_back(a);
  if (analysis_) analysis_->on_modify(*this, a);
  return true;
}

std::size_t EGraph::prune(EClassId c, const std::function<bool(const ENodeRef&)>& keep) {
  c = uf_.find_compress(c);
  std::vector<ENodeId>& nodes = classes_[c.index()].nodes;
  std::size_t hidden = 0;
  std::erase_if(nodes, [&](ENodeId n) {
    NodeRecord& r = records_[n.index()];
    if (r.dead || r.pruned || keep(node(n))) return false;
    r.pruned = 1;
    ++hidden;
    return true;
  });
  if (hidden > 0) {
    num_visible_ -= hidden;
    ++version_;
    clean_ = false;
    touched_.push_back(c);
  }
  return hidden;
}

void EGraph::repair(ENodeId n, std::size_t& unions) {
  {
    NodeRecord& r = records_[n.index()];
    if (r.dead) return;
    EClassId* ch = children_.data() + r.first_child;
    bool stale = false;
    for (std::uint32_t i = 0; i < r.arity && !stale; ++i) stale = uf_.find(ch[i]) != ch[i];
    if (!stale) return;
    memo_.erase(n);  // found by its old content, which it still has
    for (std::uint32_t i = 0; i < r.arity; ++i) ch[i] = uf_.find_compress(ch[i]);
    r.hash = hash_enode(Symbol::from_id_unchecked(r.op), r.payload, {ch, r.arity});
    touched_.push_back(r.cls);  // its class's sort order may have changed
  }
  auto [it, inserted] = memo_.insert(n);
  if (inserted) return;
  // Congruent to e-node m: n dies, their classes merge.
  ENodeId m = *it;
  NodeRecord& r = records_[n.index()];
  NodeRecord& rm = records_[m.index()];
  r.dead = 1;
  if (!r.pruned) {
    if (rm.pruned) {  // the content stays visible through m
      rm.pruned = 0;
      EClassId cm = uf_.find_compress(rm.cls);
      classes_[cm.index()].nodes.push_back(m);
      touched_.push_back(cm);
    } else {
      --num_visible_;
    }
  }
  for (std::uint32_t i = 0; i < r.arity; ++i) {
    touched_.push_back(children_[r.first_child + i]);  // their parent lists hold n
  }
  EClassId cn = r.cls, cm = rm.cls;
  if (merge(cn, cm)) ++unions;
}

std::size_t EGraph::rebuild() {
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
        queue_analysis(classes_[c.index()].parents);
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
  const EClassId* cx = children_.data() + x.first_child;
  const EClassId* cy = children_.data() + y.first_child;
  for (std::uint32_t i = 0; i < x.arity; ++i) {
    if (cx[i] != cy[i]) return cx[i] < cy[i];
  }
  return a < b;
}

void EGraph::normalize_touched() {
  for (EClassId& c : touched_) c = uf_.find_compress(c);
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  for (EClassId c : touched_) {
    EClass& cl = classes_[c.index()];
    std::erase_if(cl.nodes, [&](ENodeId n) { return !visible(records_[n.index()]); });
    std::sort(cl.nodes.begin(), cl.nodes.end(),
              [&](ENodeId a, ENodeId b) { return less_by_content(a, b); });
    cl.nodes.erase(std::unique(cl.nodes.begin(), cl.nodes.end()), cl.nodes.end());
    std::erase_if(cl.parents, [&](ENodeId n) { return records_[n.index()].dead != 0; });
    std::sort(cl.parents.begin(), cl.parents.end());
    cl.parents.erase(std::unique(cl.parents.begin(), cl.parents.end()), cl.parents.end());
  }
  touched_.clear();
}

void EGraph::rebuild_index() {
  uf_.flatten();
  for (std::vector<EClassId>& v : by_op_) v.clear();
  live_classes_.clear();
  live_classes_.reserve(num_classes_);
  for (std::uint32_t i = 0; i < uf_.size(); ++i) {
    EClassId c(i);
    if (uf_.find(c) != c) continue;
    live_classes_.push_back(c);
    std::uint32_t prev = 0;  // no e-node has the empty symbol
    for (ENodeId n : classes_[i].nodes) {
      std::uint32_t op = records_[n.index()].op;
      if (op == prev) continue;
      prev = op;
      if (op >= by_op_.size()) by_op_.resize(op + 1);
      by_op_[op].push_back(c);
    }
  }
}

void EGraph::check_invariants() const {
  auto fail = [](const std::string& what) {
    throw std::logic_error("e-graph invariant violated: " + what);
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
    if (r.hash != hash_enode(ref.op, ref.payload, ref.children)) {
      fail("e-node " + std::to_string(i) + " has a stale hash");
    }
    auto it = memo_.find(Key{ref.op, ref.payload, ref.children, r.hash});
    if (it == memo_.end() || *it != ENodeId(i)) {
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
  if (live != memo_.size()) fail("hash-cons size differs from the number of live e-nodes");
  if (visible_count != num_visible_) fail("visible e-node count is stale");
  // Classes.
  std::size_t roots = 0, listed = 0;
  std::vector<std::vector<EClassId>> expect_by_op(by_op_.size());
  for (std::uint32_t i = 0; i < uf_.size(); ++i) {
    EClassId c(i);
    const EClass& cl = classes_[i];
    if (find(c) != c) {
      if (!cl.nodes.empty() || !cl.parents.empty()) fail("a merged class still lists e-nodes");
      continue;
    }
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
    if (cl.parents != expect_parents[i]) {
      fail("parents of class " + std::to_string(i) + " are not its live parent e-nodes");
    }
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
  std::size_t b = records_.capacity() * sizeof(NodeRecord) +
                  children_.capacity() * sizeof(EClassId) + classes_.capacity() * sizeof(EClass) +
                  memo_.capacity() * (sizeof(ENodeId) + 1) + uf_.bytes() +
                  live_classes_.capacity() * sizeof(EClassId);
  for (const EClass& c : classes_) {
    b += (c.nodes.capacity() + c.parents.capacity()) * sizeof(ENodeId);
  }
  for (const std::vector<EClassId>& v : by_op_) b += v.capacity() * sizeof(EClassId);
  if (analysis_) b += analysis_->bytes();
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
