// Product epilogues (Function::fuse_dot_epilogues): an elementwise group
// reading a `dot`'s result runs on each block of the product as the block
// is written, while it is in cache.
#include "function.hpp"

#include "kernels.hpp"
#include "runtime_error.hpp"

#include <algorithm>

namespace eqsat::backend::detail {

using ops::Array;
using ops::OpKind;
using ops::TermRef;

// A float Fused group (of the product's dtype, which its result keeps)
// that reads the result of a `dot` nothing else reads becomes the
// product's epilogue: it runs on each block of the product right after
// the block is written, in place, while the block is in cache, so
// `relu(x w + b)` reads and writes the product's result once instead of
// three times. Where the group's leaves do not fit one pass at run time
// (plan_fused), or the product's result is not a whole leaf of it, the two
// run one after the other as before.
void Function::fuse_dot_epilogues(const std::vector<int>& output_slots) {
  std::vector<int> readers(slots_.size(), 0), producer(slots_.size(), -1);
  for (int i = 0; i < static_cast<int>(code_.size()); ++i) {
    for (int s : code_[i].operands) ++readers[s];
    if (code_[i].num_out == 1) producer[code_[i].out] = i;
  }
  for (int s : output_slots) ++readers[s];
  std::vector<int> into(code_.size(), -1);  // per product: the group it joins
  for (int i = 0; i < static_cast<int>(code_.size()); ++i) {
    const Instruction& group = code_[i];
    if (group.step != Step::Fused ||
        std::ranges::any_of(group.windows, [](TermRef w) { return w; }))
      continue;
    const ops::DType d = group.term->tensor_type().dtype;
    if (group.compute != d || (d != ops::DType::F32 && d != ops::DType::F64)) continue;
    for (int s : group.operands) {
      const int j = producer[s];
      if (j < 0 || readers[s] != 1 || into[j] >= 0 || code_[j].term->kind() != OpKind::Dot ||
          (code_[j].step != Step::Kernel && code_[j].step != Step::Dot) ||
          code_[j].term->tensor_type().dtype != d)
        continue;
      into[j] = i;
      break;
    }
  }
  std::vector<Instruction> old = std::move(code_);
  code_.clear();
  std::vector<int> product_of(old.size(), -1);
  for (int j = 0; j < static_cast<int>(old.size()); ++j)
    if (into[j] >= 0) product_of[into[j]] = j;
  for (int i = 0; i < static_cast<int>(old.size()); ++i) {
    if (into[i] >= 0) continue;
    if (product_of[i] < 0) {
      code_.push_back(std::move(old[i]));
      continue;
    }
    Instruction merged;
    merged.step = Step::DotEpilogue;
    merged.term = old[i].term;
    merged.out = old[i].out;
    Instruction& product = old[product_of[i]];
    merged.operands = product.operands;
    for (int s : old[i].operands)
      if (s != product.out) merged.operands.push_back(s);
    merged.members.push_back(std::move(product));
    merged.members.push_back(std::move(old[i]));
    code_.push_back(std::move(merged));
  }
}

void Function::run_dot(Instruction& in, const DotEpilogue* epilogue) {
  for (std::size_t k = 0; k < in.operands.size(); ++k) in.args[k] = &slots_[in.operands[k]];
  dot_shape(in.term, in.args, in.shape, in.trans);
  Array& dst = slots_[in.out];
  dst = context_->pool.take(in.term->tensor_type().dtype, in.shape);
  detail::run_dot(in.term, in.args, dst, in.trans, epilogue);
}

void Function::run_dot_epilogue(Instruction& in) {
  Instruction& product = in.members[0];
  Instruction& group = in.members[1];
  try {
    // Shapes are checked before the product runs: the group's leaves are
    // all computed, the product's result has its shape but no values yet.
    for (std::size_t k = 0; k < product.operands.size(); ++k)
      product.args[k] = &slots_[product.operands[k]];
    dot_shape(product.term, product.args, product.shape, product.trans);
  } catch (const RuntimeError& e) {
    context_->fail_at(product.term, e.what());
  }
  Array& result = slots_[product.out];
  result = context_->pool.take(product.term->tensor_type().dtype, product.shape);
  for (std::size_t k = 0; k < group.operands.size(); ++k)
    group.args[k] = &slots_[group.operands[k]];
  const auto leaf = std::ranges::find(group.operands, product.out) - group.operands.begin();
  if (!plan_fused(group.args, group.shape, group.layout) || group.shape != product.shape ||
      group.layout.kinds[leaf] != LeafKind::Full) {
    context_->pool.give(std::move(result));
    try {
      run_dot(product, nullptr);
    } catch (const RuntimeError& e) {
      context_->fail_at(product.term, e.what());
    }
    run_fused(group);  // writes in.out, the group's result
    context_->pool.give(std::move(slots_[product.out]));
    return;
  }
  const DotEpilogue epilogue = [&](std::int64_t first, std::int64_t count) {
    detail::run_fused_range(group.program, group.args, group.layout, group.compute, result, first,
                            count);
  };
  try {
    detail::run_dot(product.term, product.args, result, product.trans, &epilogue);
  } catch (const RuntimeError& e) {
    context_->fail_at(product.term, e.what());
  }
  slots_[in.out] = std::move(result);
}

}  // namespace eqsat::backend::detail
