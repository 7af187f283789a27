// Union-find over e-class ids with path compression, the equivalence
// relation of the e-graph. `find` never mutates (it may walk a path);
// `find_compress` halves paths; `flatten` makes every id point at its root
// so that the next `find`s take one step.
#pragma once

#include "egraph/id.hpp"

#include <vector>

namespace eqsat::egraph {

class UnionFind {
 public:
  // A new singleton set; ids are handed out densely from 0.
  EClassId make_set() {
    EClassId id(static_cast<std::uint32_t>(parent_.size()));
    parent_.push_back(id);
    return id;
  }

  std::size_t size() const { return parent_.size(); }

  EClassId find(EClassId id) const {
    while (parent_[id.index()] != id) id = parent_[id.index()];
    return id;
  }

  EClassId find_compress(EClassId id) {
    while (parent_[id.index()] != id) {
      EClassId grand = parent_[parent_[id.index()].index()];
      parent_[id.index()] = grand;
      id = grand;
    }
    return id;
  }

  // Makes `root` (which must be a root) the parent of root `child`.
  void link(EClassId root, EClassId child) { parent_[child.index()] = root; }

  // Points every id directly at its root.
  void flatten() {
    for (std::size_t i = 0; i < parent_.size(); ++i) {
      parent_[i] = find_compress(EClassId(static_cast<std::uint32_t>(i)));
    }
  }

  std::size_t bytes() const { return parent_.capacity() * sizeof(EClassId); }

 private:
  std::vector<EClassId> parent_;
};

}  // namespace eqsat::egraph
