#include "op_table.hpp"

#include <algorithm>

namespace eqsat::onnx {

std::vector<const OnnxOp*> all_onnx_ops() {
  std::vector<const OnnxOp*> all;
  for (auto family : {elementwise_ops(), reduce_ops(), shape_ops(), index_ops(), nn_ops(),
                      control_ops(), recurrent_ops()})
    for (const OnnxOp& op : family) all.push_back(&op);
  std::ranges::sort(all, {}, &OnnxOp::op_type);
  return all;
}

const OnnxOp* find_onnx_op(std::string_view op_type) {
  static const std::vector<const OnnxOp*> table = all_onnx_ops();
  auto it = std::ranges::lower_bound(table, op_type, {}, &OnnxOp::op_type);
  return it != table.end() && (*it)->op_type == op_type ? *it : nullptr;
}

}  // namespace eqsat::onnx
