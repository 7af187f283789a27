// Cost profiles: the cost model's weights measured on a machine by
// `eqsat calibrate` (calibrate.hpp) and stored as JSON, e.g.
//   {"machine": "AMD EPYC, 2 cores", "threads": 2, "call_overhead_ns": 40,
//    "ns_per_byte": 0.1, ...}
// `optimize` and `run` read the profile given by --cost-profile FILE, else
// the default one: $EQSAT_COST_PROFILE when set, else
// ~/.config/eqsat/cost_profile.json when it exists, else the built-in
// weights (CostWeights{}), which are the shipped backend/cost_profile.json.
#pragma once

#include "cost_model.hpp"

#include <string>

namespace eqsat::backend {

// The weights of the profile at `path`; keys it lacks keep their default.
// Throws std::runtime_error("PATH: REASON") when it cannot be read or is
// not a profile (not JSON, a weight that is not a positive number).
CostWeights load_cost_profile(const std::string& path);

// The profile of `weights` as JSON text, with a description of the machine.
std::string cost_profile_json(const CostWeights& weights, const std::string& machine);

// Where the default profile is looked for ($EQSAT_COST_PROFILE, else
// ~/.config/eqsat/cost_profile.json); empty when HOME is not set either.
std::string default_cost_profile_path();

// The weights of the default profile when it exists, else CostWeights{}.
CostWeights default_cost_weights();

// The weights a command uses: those of `path` (its --cost-profile) when
// given, else the default ones. Throws as load_cost_profile does.
CostWeights cost_weights_for(const std::string& path);

}  // namespace eqsat::backend
