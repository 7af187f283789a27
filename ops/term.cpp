#include "term.hpp"

#include "hash.hpp"

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <deque>

namespace eqsat::ops {

namespace {

// What identifies a term: op kind, canonical attributes and operands.
struct Key {
  OpKind kind;
  const Attrs* attrs;
  std::span<const TermRef> operands;
};

std::size_t key_hash(const Key& k) {
  std::size_t h = hash_combine(static_cast<std::size_t>(k.kind), k.attrs->hash());
  for (TermRef t : k.operands) h = hash_combine(h, t->hash());
  return h;
}

struct TermHash {
  using is_transparent = void;
  std::size_t operator()(const Term* t) const { return t->hash(); }
  std::size_t operator()(const Key& k) const { return key_hash(k); }
};

struct TermEq {
  using is_transparent = void;
  static bool same(const Term* t, const Key& k) {
    return t->kind() == k.kind && std::ranges::equal(t->operands(), k.operands) &&
           t->attrs() == *k.attrs;
  }
  bool operator()(const Term* a, const Term* b) const { return a == b; }
  bool operator()(const Term* a, const Key& b) const { return same(a, b); }
  bool operator()(const Key& a, const Term* b) const { return same(b, a); }
};

// The process-wide interning table.
struct Table {
  std::deque<Term> storage;
  absl::flat_hash_set<const Term*, TermHash, TermEq> index;
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

Term::Term(OpKind kind, Attrs attrs, std::vector<TermRef> operands, Type type, std::size_t hash,
           std::uint64_t id)
    : kind_(kind),
      attrs_(std::move(attrs)),
      operands_(std::move(operands)),
      type_(std::move(type)),
      hash_(hash),
      id_(id) {
  if (kind_ == OpKind::Nominal) {
    free_nominals_.push_back(attrs_.get<std::int64_t>(AttrKey::Slot));
  } else if (kind_ == OpKind::Input) {
    uses_input_ = true;
  } else if (kind_ != OpKind::Fn) {  // a body binds every nominal inside it
    for (TermRef t : operands_) {
      free_nominals_.insert(free_nominals_.end(), t->free_nominals_.begin(),
                            t->free_nominals_.end());
      uses_input_ |= t->uses_input_;
    }
    std::ranges::sort(free_nominals_);
    free_nominals_.erase(std::unique(free_nominals_.begin(), free_nominals_.end()),
                         free_nominals_.end());
  }
}

TermRef Term::make(OpKind kind, Attrs attrs, std::vector<TermRef> operands) {
  Table& t = table();
  // A term made before with these very attributes (canonical, then) passed
  // the same type check: the rewriter and the analysis remake existing
  // terms far more often than they make new ones.
  if (auto it = t.index.find(Key{kind, &attrs, operands}); it != t.index.end()) return *it;
  Type type = check_op(kind, attrs, operands);
  const Key key{kind, &attrs, operands};
  const std::size_t h = key_hash(key);
  if (auto it = t.index.find(key); it != t.index.end()) return *it;
  const Term& term = t.storage.emplace_back(kind, std::move(attrs), std::move(operands),
                                            std::move(type), h, t.storage.size());
  t.index.insert(&term);
  return &term;
}

TermRef Term::input(const std::string& name, const TensorType& type) {
  return make(OpKind::Input, {{AttrKey::Name, name}, {AttrKey::Type, type}}, {});
}

TermRef Term::nominal(std::int64_t slot, const TensorType& type) {
  return make(OpKind::Nominal, {{AttrKey::Slot, slot}, {AttrKey::Type, type}}, {});
}

TermRef Term::constant(const Array& value) {
  return make(OpKind::Const, {{AttrKey::Value, value}}, {});
}

TermRef Term::scalar(DType dtype, double value) {
  return constant(Array::scalar(dtype, value));
}

TermRef Term::fn(std::vector<TensorType> params, std::vector<TermRef> outputs) {
  return make(OpKind::Fn, {{AttrKey::Params, std::move(params)}}, std::move(outputs));
}

const Array* Term::const_value() const {
  return kind_ == OpKind::Const ? &attrs_.get<Array>(AttrKey::Value) : nullptr;
}

std::size_t num_terms() {
  return table().storage.size();
}

}  // namespace eqsat::ops
