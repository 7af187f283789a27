// AnalysisOf<Derived, Data>: the base of a concrete e-class analysis, which
// stores one `Data` per e-class and forwards the e-graph's calls to
// Derived's make / merge / modify (the contract is in analysis.hpp).
#pragma once

#include "egraph/analysis.hpp"
#include "egraph/egraph.hpp"

#include <utility>
#include <vector>

namespace eqsat::egraph {

// Base of a concrete analysis `Derived` with data type `Data` (see above).
// Data lives in a vector indexed by e-class id; the data of a class that was
// merged away is reset to `Data{}`.
template <class Derived, class Data>
class AnalysisOf : public Analysis {
 public:
  using DataType = Data;

  // The data of the class of `c` (any id of the class).
  const Data& data(EClassId c) const { return data_[canonical(c).index()]; }
  Data& data(EClassId c) { return data_[canonical(c).index()]; }

  // Default modify: nothing.
  void modify(EGraph&, EClassId) {}

  void on_make(const EGraph& g, EClassId c, const ENodeRef& n) final {
    if (data_.size() <= c.index()) data_.resize(c.index() + 1);
    data_[c.index()] = self().make(g, n);
  }
  bool on_join_node(const EGraph& g, EClassId c, const ENodeRef& n) final {
    return self().merge(data_[c.index()], self().make(g, n)).a_changed;
  }
  DidMerge on_merge(EClassId into, EClassId from) final {
    DidMerge d = self().merge(data_[into.index()], std::move(data_[from.index()]));
    data_[from.index()] = Data{};
    return d;
  }
  void on_modify(EGraph& g, EClassId c) final { self().modify(g, c); }
  bool agrees(const EGraph& g, EClassId c, const ENodeRef& n) const final {
    Data copy = data_[c.index()];
    Derived& me = const_cast<Derived&>(static_cast<const Derived&>(*this));
    return !me.merge(copy, me.make(g, n)).a_changed;
  }
  std::size_t bytes() const override { return data_.capacity() * sizeof(Data); }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  EClassId canonical(EClassId c) const { return egraph_->find(c); }
  std::vector<Data> data_;
};

}  // namespace eqsat::egraph
