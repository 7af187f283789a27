#include "egraph/explain.hpp"

#include "support/internal_error.hpp"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <stdexcept>

namespace eqsat::egraph {

Symbol congruence_reason() {
  static const Symbol s("congruence");
  return s;
}

namespace {
struct Content {
  Symbol op;
  Payload payload;
  std::span<const EClassId> children;
  std::size_t hash;
};
}  // namespace

// Term ids hashed and compared by content, to find a term again.
struct ProofForest::Index {
  struct Hash {
    using is_transparent = void;
    const ProofForest* f;
    std::size_t operator()(EClassId t) const {
      return hash_enode(f->op(t), f->payload(t), f->children(t));
    }
    std::size_t operator()(const Content& c) const { return c.hash; }
  };
  struct Eq {
    using is_transparent = void;
    const ProofForest* f;
    bool operator()(EClassId a, EClassId b) const { return a == b; }
    bool operator()(EClassId t, const Content& c) const {
      const auto kids = f->children(t);
      return f->op(t) == c.op && f->payload(t) == c.payload && std::ranges::equal(kids, c.children);
    }
    bool operator()(const Content& c, EClassId t) const { return (*this)(t, c); }
  };
  explicit Index(const ProofForest* f) : set(0, Hash{f}, Eq{f}) {}
  absl::flat_hash_set<EClassId, Hash, Eq> set;
};

ProofForest::ProofForest() : index_(std::make_unique<Index>(this)) {}
ProofForest::~ProofForest() = default;

void ProofForest::add_term(EClassId id, Symbol op, Payload payload,
                           std::span<const EClassId> children) {
  EQSAT_ASSERT(id.index() == terms_.size()) << "ProofForest: term ids must be dense";
  terms_.push_back({op, payload, static_cast<std::uint32_t>(kids_.size()),
                    static_cast<std::uint32_t>(children.size())});
  kids_.insert(kids_.end(), children.begin(), children.end());
  forest_.push_back({id, Symbol(), true});
  index_->set.insert(id);  // keeps the first term of a content
}

std::optional<EClassId> ProofForest::find_term(Symbol op, Payload payload,
                                               std::span<const EClassId> children) const {
  auto it = index_->set.find(Content{op, payload, children, hash_enode(op, payload, children)});
  if (it == index_->set.end()) return std::nullopt;
  return *it;
}

void ProofForest::reroot(EClassId t) {
  // Reverse the edges on the path from t to its root.
  EClassId child = t;
  Edge carried = forest_[t.index()];
  forest_[t.index()] = {t, Symbol(), true};
  while (carried.parent != child) {
    const EClassId up = carried.parent;
    const Edge next = forest_[up.index()];
    forest_[up.index()] = {child, carried.why, !carried.forward};
    child = up;
    carried = next;
  }
}

void ProofForest::add_edge(EClassId a, EClassId b, Symbol why) {
  reroot(a);
  forest_[a.index()] = {b, why, true};
  ++edges_;
}

std::size_t ProofForest::bytes() const {
  return terms_.capacity() * sizeof(Term) + kids_.capacity() * sizeof(EClassId) +
         forest_.capacity() * sizeof(Edge) + index_->set.capacity() * (sizeof(EClassId) + 1);
}

void ProofForest::expand(EClassId from, EClassId to, Symbol why, bool forward,
                         std::vector<std::uint32_t>& position, std::vector<ProofStep>& out,
                         std::size_t max_steps) const {
  if (why != congruence_reason()) {
    if (out.size() >= max_steps)
      throw std::length_error("explanation longer than " + std::to_string(max_steps) + " steps");
    out.push_back({why, forward, position, from, to});
    return;
  }
  const auto a = children(from), b = children(to);
  for (std::uint32_t j = 0; j < a.size(); ++j) {
    if (a[j] == b[j]) continue;
    position.push_back(j);
    path(a[j], b[j], position, out, max_steps);
    position.pop_back();
  }
}

void ProofForest::path(EClassId a, EClassId b, std::vector<std::uint32_t>& position,
                       std::vector<ProofStep>& out, std::size_t max_steps) const {
  auto depth = [&](EClassId t) {
    std::size_t d = 0;
    for (; forest_[t.index()].parent != t; t = forest_[t.index()].parent) ++d;
    return d;
  };
  std::size_t da = depth(a), db = depth(b);
  std::vector<EClassId> up, down;  // a's side climbing, b's side climbing
  EClassId x = a, y = b;
  for (; da > db; --da, x = forest_[x.index()].parent) up.push_back(x);
  for (; db > da; --db, y = forest_[y.index()].parent) down.push_back(y);
  while (x != y) {
    EQSAT_ASSERT(forest_[x.index()].parent != x)
        << "not proven equal: the terms are in different e-classes";
    up.push_back(x);
    down.push_back(y);
    x = forest_[x.index()].parent;
    y = forest_[y.index()].parent;
  }
  for (EClassId t : up) {
    const Edge& e = forest_[t.index()];
    expand(t, e.parent, e.why, e.forward, position, out, max_steps);
  }
  for (auto it = down.rbegin(); it != down.rend(); ++it) {
    const Edge& e = forest_[it->index()];
    expand(e.parent, *it, e.why, !e.forward, position, out, max_steps);
  }
}

std::vector<ProofStep> ProofForest::explain(EClassId a, EClassId b, std::size_t max_steps) const {
  EQSAT_ASSERT(a.index() < terms_.size() && b.index() < terms_.size())
      << "ProofForest::explain: not a term of this e-graph";
  std::vector<ProofStep> out;
  std::vector<std::uint32_t> position;
  path(a, b, position, out, max_steps);
  return out;
}

std::string ProofForest::to_string(EClassId t) const {
  const auto kids = children(t);
  std::string s = kids.empty() ? "" : "(";
  s += op(t).name();
  if (payload(t) != 0) s.append("@").append(std::to_string(payload(t)));
  for (EClassId k : kids) s.append(" ").append(to_string(k));
  if (!kids.empty()) s += ')';
  return s;
}

}  // namespace eqsat::egraph
