// Calibration: measures the cost model's weights on this machine by timing
// small programs on the executor (`eqsat calibrate` writes them as a cost
// profile, cost_profile.hpp). Each weight is the best of several timed runs:
//   call_overhead_ns       a chain of 64 unfusable ops on one-element arrays, per op
//   ns_per_byte            neg of 10^7 f64 (memory bound), per byte read and written
//   ns_per_flop            add of two 4096-element f64 arrays (in cache), per element
//   ns_per_transcendental  exp of 4096 f64 (in cache), per element
//   ns_per_gemm_flop       a 512 x 512 f64 matrix product, per multiply or add
//   scan_step_overhead_ns  a 10^4-step scan over a two-element state, per step
//                          beyond its body's one op
// Takes about a second.
#pragma once

#include "cost_model.hpp"

#include <functional>
#include <string>

namespace eqsat::backend {

// Measures the weights; `progress`, when set, is told each weight as it is
// measured ("ns_per_byte = 0.08").
CostWeights calibrate(const std::function<void(const std::string&)>& progress = {});

}  // namespace eqsat::backend
