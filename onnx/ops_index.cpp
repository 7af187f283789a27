// ONNX's gathers: Gather and GatherElements (gather.hpp).
#include "gather.hpp"
#include "op_table.hpp"

namespace eqsat::onnx {

namespace {

using Out = std::vector<ops::TermRef>;

Out gather(NodeContext& c) {
  c.only_attrs({"axis"});
  const int axis = onnx_axis(c, c.attr_int("axis", 0), c.rank(0));
  return {take(c, c.input(0), c.input(1), axis)};
}

Out gather_elements(NodeContext& c) {
  c.only_attrs({"axis"});
  const int axis = onnx_axis(c, c.attr_int("axis", 0), c.rank(0));
  return {take_along_axis(c, c.input(0), c.input(1), axis)};
}

const OnnxOp kOps[] = {
    {"Gather", gather},
    {"GatherElements", gather_elements},
};

}  // namespace

std::span<const OnnxOp> index_ops() {
  return kOps;
}

}  // namespace eqsat::onnx
