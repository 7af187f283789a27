// The data `eqsat html` embeds in its page, one JSON object built in parts:
//   {"graph": FILE,
//    "egraph": {"roots": [{"output", "class"}], "bodies": [{"parent", "fn"}],
//               "classes": [{"id", "type", "body", "chosen", "nodes": [
//                   {"op", "label", "attrs", "children", "cost"}]}]},
//    "report": {...}, "alternatives": [{"rank", "cost", "input", "text"}]}
// Classes are the reached ones in id order; "chosen" is the index of the
// extractor's e-node in "nodes"; "body" indexes "bodies" (0: the top level).
// Deterministic: nothing timed goes in, so the same run gives the same bytes.
#pragma once

#include "ops/graph.hpp"
#include "rules/pipeline/egraph_picture.hpp"
#include "rules/pipeline/explore.hpp"
#include "rules/pipeline/optimize.hpp"

#include <nlohmann/json.hpp>

#include <span>

namespace eqsat::tools {

// The "egraph" part: the picture of the saturated e-graph (rules/pipeline/egraph_picture.hpp);
// `graph`'s output names label the roots.
nlohmann::json egraph_json(const rules::TensorEGraph& g, const rules::EGraphPicture& picture,
                           const ops::Graph& graph);

// The "report" part: OptimizeReport::to_json without the seconds, which
// differ from run to run.
nlohmann::json report_json(const rules::OptimizeReport& report);

// The "alternatives" part: each graph printed as a `.eg` file, with its
// rank (from 1), cost, and whether it is `input` unchanged.
nlohmann::json alternatives_json(std::span<const rules::Alternative> found,
                                 const ops::Graph& input);

}  // namespace eqsat::tools
