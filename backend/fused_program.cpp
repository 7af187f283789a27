// Passes over a fused group's program, run once when the group is formed
// (Function::fuse_group): sin and cos of one source paired, registers
// reused once their value is dead, an added leaf taken out for a product
// to add it in place (kernel_groups.hpp).
#include "kernel_groups.hpp"

#include <algorithm>
#include <functional>
#include <optional>
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

std::optional<AddedLeaf> without_added_leaf(const std::vector<FusedOp>& program, int product,
                                            const std::function<bool(int)>& eligible) {
  const int size = static_cast<int>(program.size());
  std::vector<int> op_reads(size, 0), reader(size, -1);
  std::vector<int> leaf_reads;
  int product_reader = -1;
  for (int k = 0; k < size; ++k)
    for (int i = 0; i < program[k].arity; ++i) {
      const FusedSource& src = program[k].src[i];
      if (!src.leaf) {
        ++op_reads[src.index];
        reader[src.index] = k;
        continue;
      }
      if (src.index >= static_cast<int>(leaf_reads.size())) leaf_reads.resize(src.index + 1, 0);
      ++leaf_reads[src.index];
      if (src.index == product) product_reader = k;
    }
  if (product_reader < 0 || leaf_reads[product] != 1) return std::nullopt;
  // Up the chain of adds from the product: the first whose other operand
  // is an eligible leaf read there alone.
  FusedSource input{true, product};
  for (int k = product_reader;;) {
    const FusedOp& op = program[k];
    if (op.kind != OpKind::Add || op.arity != 2) return std::nullopt;
    const FusedSource& other =
        op.src[0].leaf == input.leaf && op.src[0].index == input.index ? op.src[1] : op.src[0];
    if (other.leaf && other.index != product && leaf_reads[other.index] == 1 &&
        eligible(other.index)) {
      // Op k goes; its readers read its chain input, which will hold the
      // sum with the leaf added.
      std::vector<FusedOp> rest;
      for (int j = 0; j < size; ++j) {
        if (j == k) continue;
        FusedOp o = program[j];
        for (int i = 0; i < o.arity; ++i) {
          FusedSource& src = o.src[i];
          if (!src.leaf && src.index == k) src = input;
          if (!src.leaf && src.index > k) --src.index;
        }
        if (o.partner > k) --o.partner;
        o.reg = -1;
        rest.push_back(o);
      }
      allocate_registers(rest);
      return AddedLeaf{other.index, std::move(rest)};
    }
    if (k == size - 1 || op_reads[k] != 1) return std::nullopt;
    input = FusedSource{false, k};
    k = reader[k];
  }
}

}  // namespace eqsat::backend::detail
