// Passes over a fused group's program, run once when the group is formed
// (Function::fuse_group): sin and cos of one source paired, registers
// reused once their value is dead (kernel_groups.hpp).
#include "kernel_groups.hpp"

#include <algorithm>
#include <vector>

namespace eqsat::backend::detail {

using ops::OpKind;

void pair_sin_cos(std::vector<FusedOp>& program) {
  for (std::size_t k = 0; k < program.size(); ++k) {
    FusedOp& op = program[k];
    if ((op.kind != OpKind::Sin && op.kind != OpKind::Cos) || op.partner >= 0 || op.by_partner)
      continue;
    const OpKind other = op.kind == OpKind::Sin ? OpKind::Cos : OpKind::Sin;
    for (std::size_t j = k + 1; j < program.size(); ++j) {
      FusedOp& p = program[j];
      if (p.kind != other || p.partner >= 0 || p.by_partner) continue;
      if (p.src[0].leaf != op.src[0].leaf || p.src[0].index != op.src[0].index) continue;
      op.partner = static_cast<int>(j);
      p.by_partner = true;
      break;
    }
  }
}

void allocate_registers(std::vector<FusedOp>& program) {
  std::vector<std::size_t> last_read(program.size(), 0);
  for (std::size_t k = 0; k < program.size(); ++k)
    for (int i = 0; i < program[k].arity; ++i)
      if (!program[k].src[i].leaf) last_read[program[k].src[i].index] = k;
  std::vector<int> free;  // registers no live value holds
  int used = 0;
  const auto take = [&] {
    if (free.empty()) return used++;
    const int r = free.back();
    free.pop_back();
    return r;
  };
  const std::size_t root = program.size() - 1;
  for (std::size_t k = 0; k < program.size(); ++k) {
    FusedOp& op = program[k];
    if (!op.by_partner) {  // a partner's register comes with the op computing it
      if (k != root) op.reg = take();
      if (op.partner >= 0 && static_cast<std::size_t>(op.partner) != root)
        program[op.partner].reg = take();
    }
    // The sources read here for the last time give theirs back, after the
    // results took theirs: no op writes a register it reads.
    for (int i = 0; i < op.arity; ++i) {
      const FusedSource& src = op.src[i];
      if (src.leaf || last_read[src.index] != k) continue;
      const int r = program[src.index].reg;
      if (std::find(free.begin(), free.end(), r) == free.end()) free.push_back(r);
    }
  }
}

}  // namespace eqsat::backend::detail
