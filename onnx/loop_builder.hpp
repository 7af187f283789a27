// Building our `scan` for ONNX's loops (Scan, Loop, RNN, GRU, LSTM): one
// tap per sequence, sit-sot states, nit-sot outputs and non-sequences, the
// body a `fn` over nominals in that slot order; and reading ONNX's bodies
// (GraphProto) into such a `fn`, their outer values captured as extra
// non-sequences.
#pragma once

#include "node_context.hpp"

#include <vector>

namespace eqsat::onnx {

struct LoopParts {
  std::vector<ops::TermRef> sequences;     // outer, iterated along axis 0
  std::vector<ops::TermRef> sitsots;       // initial states
  std::vector<ops::TermRef> nonsequences;  // outer values the body reads
  std::int64_t num_nitsot = 0;
  bool until = false;  // the body's last output is a stop flag
  // over nominals: sequences' elements, states, non-sequences
  std::vector<ops::TermRef> body_outputs;  // next states, nit-sots, flag
};

// The types of the body's parameters, in slot order.
std::vector<ops::TensorType> loop_params(const LoopParts& parts);
// The nominal of parameter `slot`.
ops::TermRef loop_param(const LoopParts& parts, std::size_t slot);

// The `(scan ...)` tuple: every state's history, then the nit-sots.
ops::TermRef make_loop(const NodeContext& c, const LoopParts& parts);
// A state's value after the loop: the last of its `history`, or `init`
// when the loop may run no step.
ops::TermRef final_state(const NodeContext& c, ops::TermRef history, ops::TermRef init);

// Reads `body` with its inputs bound to `inputs` (nominals or constants,
// in the body's input order); returns its outputs. Outer values it names
// are appended to `parts.nonsequences` (their nominals take the slots after
// `num_params`).
std::vector<ops::TermRef> read_body(const NodeContext& c, const pb::GraphProto& body,
                                    const std::vector<ops::TermRef>& inputs, std::size_t num_params,
                                    LoopParts& parts);

}  // namespace eqsat::onnx
