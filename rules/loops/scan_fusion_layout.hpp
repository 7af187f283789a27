// The layout of two loops fused into one (loop fusion, PyTensor's
// ScanMerge), whatever their operands and bodies are: e-classes in the
// scan-fusion applier (bodies renamed by the substitution of
// substitute.hpp), terms when extracted loops are fused
// (scan_fusion_extracted.hpp).
//
// The fused loop runs both bodies side by side: its sequences are the
// first loop's, then the second's that the first does not read already
// (same value, same taps: read once, through one parameter); its mit-sots,
// sit-sots and nit-sots are the first loop's then the second's, kind by
// kind, except that a state of the second loop with the same initial
// value and :keep as one of the first's, and the same next value whenever
// the two are assumed equal, is that state (loops split apart per output
// fuse back with one copy); its non-sequences likewise, shared when
// equal. Both loops must run
// the same number of steps (the caller proves it) and neither may read the
// other (the caller checks it too).
#pragma once

#include "ops/attrs.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace eqsat::rules {

// One loop to fuse: its layout, its body's parameter types, and a key per
// operand (equal keys: the same value); keys[0], the body's, is not read.
struct LoopParts {
  const ops::ScanSpec& spec;
  std::span<const ops::TensorType> params;
  std::span<const std::uint64_t> keys;
};

// Loop l's body outputs (stop flag last) with each parameter k read at
// fused slot slot_of[k]: one key per output, equal keys for equal values
// (terms or e-classes: the caller's); nullopt when they cannot be built.
using RenamedOutputs = std::function<std::optional<std::vector<std::uint64_t>>(
    int l, std::span<const std::int64_t> slot_of)>;

struct FusedLoop {
  ops::ScanSpec spec;
  std::vector<ops::TensorType> params;  // of the fused body
  // Operands 1... of the fused loop: (which loop, operand position there).
  std::vector<std::pair<int, std::size_t>> operands;
  // The fused body's outputs, stop flag last: (which loop, its body output),
  // each read with that loop's parameters at `slot_of[loop]`.
  std::vector<std::pair<int, std::size_t>> body;
  std::array<std::vector<std::int64_t>, 2> slot_of;
  // The fused tuple position of each output of either loop.
  std::array<std::vector<std::size_t>, 2> output;
};

// The two loops as one. nullopt when their stop conditions differ: one is
// an until-loop and the other not, or the flags differ once both bodies
// read shared sequences and non-sequences through the same parameters.
std::optional<FusedLoop> fuse_layout(const LoopParts& a, const LoopParts& b,
                                     const RenamedOutputs& renamed);

}  // namespace eqsat::rules
