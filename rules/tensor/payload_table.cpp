#include "rules/tensor/payload_table.hpp"

namespace eqsat::rules {

egraph::Payload PayloadTable::intern(const ops::Attrs& attrs) {
  auto& bucket = by_hash_[attrs.hash()];
  for (egraph::Payload p : bucket)
    if (attrs_[p] == attrs) return p;
  const egraph::Payload p = attrs_.size();
  attrs_.push_back(attrs);
  bucket.push_back(p);
  return p;
}

}  // namespace eqsat::rules
