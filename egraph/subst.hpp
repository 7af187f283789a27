// Substitutions and match lists: what e-matching produces. A `VarLayout`
// names the variables of a searcher (e-class variables and payload
// variables, in a fixed order); `Matches` stores many substitutions flat,
// one row per match; `Subst` is a view of one row.
#pragma once

#include "egraph/id.hpp"
#include "egraph/symbol.hpp"
#include "support/internal_error.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace eqsat::egraph {

struct VarLayout {
  std::vector<Symbol> vars;
  std::vector<Symbol> payload_vars;

  std::optional<std::uint32_t> index_of(Symbol v) const {
    auto it = std::find(vars.begin(), vars.end(), v);
    if (it == vars.end()) return std::nullopt;
    return static_cast<std::uint32_t>(it - vars.begin());
  }
  std::optional<std::uint32_t> payload_index_of(Symbol v) const {
    auto it = std::find(payload_vars.begin(), payload_vars.end(), v);
    if (it == payload_vars.end()) return std::nullopt;
    return static_cast<std::uint32_t>(it - payload_vars.begin());
  }
};

// One substitution: the e-class bound to each variable and the payload
// bound to each payload variable, in the layout's order.
class Subst {
 public:
  Subst(const VarLayout& layout, const EClassId* classes, const Payload* payloads)
      : layout_(&layout), classes_(classes), payloads_(payloads) {}

  EClassId operator[](std::uint32_t i) const { return classes_[i]; }
  Payload payload(std::uint32_t i) const { return payloads_[i]; }
  // By name; a variable the searcher lacks is an InternalError (EQSAT_ASSERT).
  EClassId get(Symbol v) const {
    const auto i = layout_->index_of(v);
    EQSAT_ASSERT(i) << "no variable " << v.name() << " in this substitution";
    return classes_[*i];
  }
  Payload get_payload(Symbol v) const {
    const auto i = layout_->payload_index_of(v);
    EQSAT_ASSERT(i) << "no payload variable " << v.name() << " in this substitution";
    return payloads_[*i];
  }
  const VarLayout& layout() const { return *layout_; }

 private:
  const VarLayout* layout_;
  const EClassId* classes_;
  const Payload* payloads_;
};

// Matches of one searcher: for match i, `roots[i]` is the e-class the
// (first) pattern's root matched, followed by its substitution. `layout`
// points into the searcher, which must outlive the matches.
struct Matches {
  const VarLayout* layout = nullptr;
  std::vector<EClassId> roots;
  std::vector<EClassId> classes;  // layout->vars.size() per match
  std::vector<Payload> payloads;  // layout->payload_vars.size() per match

  std::size_t size() const { return roots.size(); }
  bool empty() const { return roots.empty(); }
  void clear() {
    roots.clear();
    classes.clear();
    payloads.clear();
  }
  Subst subst(std::size_t i) const {
    return Subst(*layout, classes.data() + i * layout->vars.size(),
                 payloads.data() + i * layout->payload_vars.size());
  }
};

// Receives batches of matches during a search (which then clears them);
// returns false to stop the search.
using MatchSink = std::function<bool(Matches& batch)>;

}  // namespace eqsat::egraph
