// scan-merge-sequences: a sequence given twice (the same outer e-class) is
// read once. The second one's taps join the first's (sorted, each read
// once) and the body reads them there; the trip count is unchanged, as the
// merged sequence keeps the larger last tap. The new loop is merged with
// the old one.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include "egraph/rewrite.hpp"

namespace eqsat::rules {

egraph::Rewrite make_scan_merge_sequences(TensorEGraph& g);

}  // namespace eqsat::rules
