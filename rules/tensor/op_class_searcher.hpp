// A searcher for built-in appliers that match by op alone: it finds every
// class holding an e-node of one of the given ops (loop bodies included),
// each class once, in class-id order. The applier then looks at the
// class's e-nodes itself. An applier that acts only on operands of some
// ops (`expand_dims` under an add) names them as `needs`: while the
// e-graph holds no e-node of any of them, the search finds nothing, as
// the applier would do nothing with its classes.
#pragma once

#include "egraph/rewrite.hpp"
#include "ops/op.hpp"

#include <string>
#include <vector>

namespace eqsat::rules {

class OpClassSearcher final : public egraph::Searcher {
 public:
  // `text` is how the rule's left side is shown in reports.
  OpClassSearcher(std::vector<ops::OpKind> ops, std::string text,
                  std::vector<ops::OpKind> needs = {})
      : ops_(std::move(ops)), text_(std::move(text)), needs_(std::move(needs)) {}

  const egraph::VarLayout& layout() const override { return layout_; }
  void search(const egraph::EGraph& g, egraph::Matches& out, std::size_t limit) const override;
  void search_eclass(const egraph::EGraph& g, egraph::EClassId c, egraph::Matches& out,
                     std::size_t limit) const override;
  std::string to_string() const override { return text_; }

 private:
  bool may_act(const egraph::EGraph& g) const;

  std::vector<ops::OpKind> ops_;
  std::string text_;
  std::vector<ops::OpKind> needs_;
  egraph::VarLayout layout_;
};

}  // namespace eqsat::rules
