// Reading elements at run-time indices with our ops, exactly: `take` is
// ONNX's Gather (one `index` per index, stacked: negative indices count
// from the end, one out of range fails the run), `take_along_axis` its
// GatherElements (a sum of `where` selections, which adds only zeros to
// the picked element, plus a check that fails the run on an index out of
// range, as `index` does).
#pragma once

#include "node_context.hpp"

namespace eqsat::onnx {

// data[..., indices, ...] along `axis`; `indices` needs a static shape of
// at most 4096 elements.
ops::TermRef take(const NodeContext& c, ops::TermRef data, ops::TermRef indices, int axis);
// out[i][j][k] = data[i][indices[i][j][k]][k] for axis 1 (ranks equal).
ops::TermRef take_along_axis(const NodeContext& c, ops::TermRef data, ops::TermRef indices,
                             int axis);

}  // namespace eqsat::onnx
