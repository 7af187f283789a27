// The memory a run is planned to need, known before it starts (docs/architecture.md,
// decision 12): `eqsat run` refuses a graph whose plan exceeds its memory
// limit instead of running out of memory half-way.
//
//   const std::int64_t bytes = backend::planned_bytes(graph, {{DType::F64, {1000, 1000}}});
//
// The plan follows the executor's own rules: values in a topological order
// of the top level, each buffer alive from the instruction that makes it to
// its last reader, outputs and inputs to the end, views (reshape,
// expand_dims, squeeze, a cast to the same dtype) and `get` free, and each
// scan or call adding the plan of its body while it runs (a scan's stored
// outputs are counted in its result). In-place updates and fusion, which
// save buffers, are not modelled, so the plan is an upper estimate of the
// top level's peak; a value whose size depends on run-time data (an unknown
// dimension left after the inputs' shapes are known) counts as 0 bytes.
#pragma once

#include "ops/graph.hpp"

#include <cstdint>
#include <vector>

namespace eqsat::backend {

// The planned peak bytes of running `graph` on inputs of `input_types` (in
// `graph.inputs` order, every dimension known). Saturates at INT64_MAX.
std::int64_t planned_bytes(const ops::Graph& graph,
                           const std::vector<ops::TensorType>& input_types);

}  // namespace eqsat::backend
