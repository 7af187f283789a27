// One line of a profile (Program::set_profiling): what an instruction of
// the top-level program runs, its accumulated wall time and its calls.
#pragma once

#include <cstdint>
#include <string>

namespace eqsat::backend {

struct OpTiming {
  std::string op;  // "dot", "fused(sin mul exp)", "sum(fused: exp sub)", "scan" ...
  double seconds = 0;
  std::int64_t calls = 0;
};

}  // namespace eqsat::backend
