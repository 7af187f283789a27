// AnalysisOf<Derived, Data>: the base of a concrete e-class analysis, which
// stores one `Data` per e-class and forwards the e-graph's calls to
// Derived's make / merge / modify (the contract is in analysis.hpp).
#pragma once

#include "egraph/analysis.hpp"
#include "egraph/egraph.hpp"
#include "egraph/growth.hpp"

#include <utility>
#include <vector>

namespace eqsat::egraph {

// Base of a concrete analysis `Derived` with data type `Data` (see above).
// Data lives in a vector indexed by the e-graph's class slot (EGraph::slot),
// so it holds live classes only; the data of a class that was merged away
// is reset to `Data{}` and its slot goes to a later class.
template <class Derived, class Data>
class AnalysisOf : public Analysis {
 public:
  using DataType = Data;

  // The data of the class of `c` (any id of the class).
  const Data& data(EClassId c) const { return data_[egraph_->slot(c)]; }
  Data& data(EClassId c) { return data_[egraph_->slot(c)]; }

  // Default modify: nothing.
  void modify(EGraph&, EClassId) {}

  void on_make(const EGraph& g, EClassId c, const ENodeRef& n) final {
    const std::uint32_t s = g.slot(c);
    while (data_.size() <= s) {
      reserve_one_more(data_);
      data_.emplace_back();
    }
    data_[s] = self().make(g, n);
  }
  bool on_join_node(const EGraph& g, EClassId c, const ENodeRef& n) final {
    return self().merge(data_[g.slot(c)], self().make(g, n)).a_changed;
  }
  DidMerge on_merge(EClassId into, EClassId from) final {
    Data& from_data = data_[egraph_->slot_of_id(from)];
    DidMerge d = self().merge(data_[egraph_->slot_of_id(into)], std::move(from_data));
    from_data = Data{};
    return d;
  }
  void on_modify(EGraph& g, EClassId c) final { self().modify(g, c); }
  bool agrees(const EGraph& g, EClassId c, const ENodeRef& n) const final {
    Data copy = data_[g.slot(c)];
    Derived& me = const_cast<Derived&>(static_cast<const Derived&>(*this));
    return !me.merge(copy, me.make(g, n)).a_changed;
  }
  std::size_t bytes() const override { return data_.capacity() * sizeof(Data); }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  std::vector<Data> data_;
};

}  // namespace eqsat::egraph
