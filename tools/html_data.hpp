// The data `eqsat html` embeds in its page, one JSON object built in parts:
//   {"graph": FILE,
//    "egraph": {"roots": [{"output", "class"}], "bodies": [{"parent", "fn"}],
//               "classes": [{"id", "type", "body", "chosen", "nodes": [
//                   {"op", "label", "attrs", "children", "cost"}]}]},
//    "report": {...}, "alternatives": [{"rank", "cost", "input", "text"}]}
// Classes are the reached ones in id order (within a budget, see
// egraph_json); "chosen" is the index of the
// extractor's e-node in "nodes"; "body" indexes "bodies" (0: the top level).
// Deterministic: nothing timed goes in, so the same run gives the same bytes.
#pragma once

#include "ops/graph.hpp"
#include "rules/pipeline/egraph_picture.hpp"
#include "rules/pipeline/explore.hpp"
#include "rules/pipeline/optimize.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <span>

namespace eqsat::tools {

// The most e-nodes a page shows, and the most of one class: bounds the
// page (and the memory to build it) whatever the e-graph's size.
inline constexpr std::size_t kMaxPageNodes = 20'000;
inline constexpr std::size_t kMaxNodesPerClass = 200;

// The "egraph" part: the picture of the saturated e-graph (rules/pipeline/egraph_picture.hpp);
// `graph`'s output names label the roots. At most `max_nodes` e-nodes:
// every class the extractor's choices reach from the roots, then the other
// reached classes in id order while they fit; at most kMaxNodesPerClass of
// one class (the chosen one always), the rest counted in "hidden_nodes".
// When anything is left out, "shown": {"classes", "of_classes", "nodes",
// "of_nodes"} says how much.
nlohmann::json egraph_json(const rules::TensorEGraph& g, const rules::EGraphPicture& picture,
                           const ops::Graph& graph, std::size_t max_nodes = kMaxPageNodes);

// The "report" part: OptimizeReport::to_json without the seconds, which
// differ from run to run.
nlohmann::json report_json(const rules::OptimizeReport& report);

// The "alternatives" part: each graph printed as a `.eg` file, with its
// rank (from 1), cost, and whether it is `input` unchanged.
nlohmann::json alternatives_json(std::span<const rules::Alternative> found,
                                 const ops::Graph& input);

}  // namespace eqsat::tools
