// Product epilogues (Function::fuse_dot_epilogues): an elementwise group
// reading a `dot`'s result runs on each block of the product as the block
// is written, while it is in cache.
#include "function.hpp"

#include "kernels.hpp"
#include "runtime_error.hpp"
#include "thread_pool.hpp"

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

// Fused groups right after a product with an epilogue that read its
// result (or a result of such a group before them) and otherwise only
// values computed before the product, in the product's dtype, are its
// followers: where at run time their rows line up with the product's
// (plan_followers), each runs on a block of rows right after the product
// wrote the block, on the same thread. An LSTM step's cell (two groups
// reading windows of the gates) then costs no hand-off between threads of
// its own, and reads its gates from the thread's cache.
void Function::chain_row_followers() {
  std::vector<int> producer(slots_.size(), -1);
  for (int i = 0; i < static_cast<int>(code_.size()); ++i)
    for (int k = 0; k < code_[i].num_out; ++k) producer[code_[i].out + k] = i;
  for (int i = 0; i < static_cast<int>(code_.size()); ++i) {
    Instruction& head = code_[i];
    if (head.step != Step::DotEpilogue) continue;
    std::vector<int> chained{head.out};  // slots the product and its followers write
    for (int j = i + 1; j < static_cast<int>(code_.size()); ++j) {
      const Instruction& f = code_[j];
      if (f.step != Step::Fused || f.compute != head.members[1].compute ||
          f.term->tensor_type().dtype != f.compute)
        break;
      bool reads_chain = false, before = true;
      for (int s : f.operands) {
        if (std::ranges::find(chained, s) != chained.end())
          reads_chain = true;
        else if (producer[s] >= i)
          before = false;
      }
      if (!reads_chain || !before) break;
      head.followers.push_back(j);
      chained.push_back(f.out);
    }
  }
}

// Makes ready the followers of a product with an epilogue, of two
// matrices, to run a block of rows at a time: each is planned and its
// result taken before the product runs. The first whose rows do not line
// up with the product's (not a matrix of as many rows, rows shorter than
// kShortRow, a leaf broadcast along the rows) and all after it run in
// their turn instead. `result` is the product's result, which they read
// as the epilogue's. True when at least one follower runs with the
// product (rows.done runs them).
bool Function::plan_followers(Instruction& in, Array& result, DotRows& rows) {
  const Instruction& product = in.members[0];
  const Instruction& group = in.members[1];
  if (in.followers.empty() || product.args[0]->shape().size() != 2 ||
      product.args[1]->shape().size() != 2)
    return false;
  // Fewer rows than threads: the product is better split by columns, and
  // the groups after it on their own.
  const std::int64_t m = product.shape[0];
  if (m < num_threads()) return false;
  slots_[in.out] = result;
  // A follower may not write into a buffer the product or its epilogue
  // reads: another thread's block may still read it.
  auto read_by_product = [&](const Array& a) {
    auto same = [&](const Array* x) { return x->bytes() == a.bytes(); };
    return std::ranges::any_of(product.args, same) || std::ranges::any_of(group.args, same);
  };
  std::size_t count = 0;
  rows.work_per_row = 0;
  for (; count < in.followers.size(); ++count) {
    Instruction& f = code_[in.followers[count]];
    if (!plan_fused_step(f) || f.shape.size() != 2 || f.shape[0] != m || f.shape[1] < kShortRow)
      break;
    // All-whole leaves plan as one long row: ask for the result's rows
    // (kept as its plan: any layout of these shapes runs it).
    if (f.layout.rows != m && !plan_fused(f.args, f.shape, f.layout, f.shape[1], f.leaf_windows)) {
      f.planned = false;  // the layout was overwritten
      break;
    }
    if (f.layout.rows != m) break;
    const ops::DType dtype = f.term->tensor_type().dtype;
    const auto place = std::ranges::find_if(f.in_place, [&](int k) {
      const Array& a = *f.args[k];
      return a.unique() && a.dtype() == dtype && a.shape() == f.shape && !read_by_product(a);
    });
    slots_[f.out] =
        place != f.in_place.end() ? *f.args[*place] : context_->pool.take(dtype, f.shape);
    rows.work_per_row += f.work * f.layout.row_len;
    f.ran = true;
  }
  if (count == 0) return false;
  // Two pointers: std::function holds them without a heap allocation.
  in.followers_by_rows = count;
  rows.done = [this, &in](std::int64_t r0, std::int64_t r1) {
    for (std::size_t i = 0; i < in.followers_by_rows; ++i) {
      Instruction& f = code_[in.followers[i]];
      const std::int64_t len = f.layout.row_len;
      detail::run_fused_range(f.program, f.args, f.layout, f.compute, slots_[f.out], r0 * len,
                              (r1 - r0) * len);
    }
  };
  return true;
}

void Function::run_dot(Instruction& in, const DotEpilogue* epilogue) {
  for (std::size_t k = 0; k < in.operands.size(); ++k) in.args[k] = &slots_[in.operands[k]];
  dot_shape(in.term, in.args, in.shape, in.trans);
  Array& dst = slots_[in.out];
  dst = context_->pool.take(in.term->tensor_type().dtype, in.shape);
  detail::run_dot(in.term, in.args, dst, in.trans, epilogue, nullptr, false, kept_b(in));
}

bool Function::constant_b(const Instruction& product) const {
  const auto s = static_cast<std::size_t>(product.operands[1]);
  return s >= num_params_ && pinned_[s];
}

// The product's b copy to keep between runs, when b is a constant of the
// program or lies in a param this run may assume Invariant (the param
// itself, or a view of it). New copies count in the run's memory.
BStrips* Function::kept_b(Instruction& product) {
  product.b_strips.count_in(&context_->pool);
  if (constant_b(product)) return &product.b_strips;
  const Array& b = *product.args[1];
  for (std::size_t p = 0; p < uses_.size() && p < num_params_; ++p) {
    const Array& param = slots_[p];
    if (uses_[p] == ParamUse::Invariant && param.bytes() <= b.bytes() &&
        b.bytes() + b.nbytes() <= param.bytes() + param.nbytes())
      return &product.b_strips;
  }
  return nullptr;
}

void Function::release_copies() {
  for (Instruction& in : code_) {
    in.b_strips.release();
    for (Instruction& member : in.members) member.b_strips.release();
  }
}

void Function::start_loop() {
  auto forget = [&](Instruction& product) {
    if (!constant_b(product)) product.b_strips.forget();
  };
  for (Instruction& in : code_) {
    if (in.step == Step::Dot) forget(in);
    if (in.step == Step::DotEpilogue) forget(in.members[0]);
  }
}

// Whether the product may be added by the library into the leaf of its
// group that Instruction::accumulate names, at this run: a param the
// caller gave up, or a value no other array holds; of the product's shape
// and dtype, sharing no memory with the product's operands. As
// onnxruntime does for an LSTM, whose step adds its product to the input
// projection's rows: a pass of its own read those rows back from memory.
bool Function::may_accumulate(const Instruction& in) const {
  if (in.accumulate < 0) return false;
  const Instruction& product = in.members[0];
  const auto s = static_cast<std::size_t>(in.members[1].operands[in.accumulate]);
  const Array& leaf = slots_[s];
  const bool mine =
      s < num_params_ ? s < uses_.size() && uses_[s] == ParamUse::GivenUp : leaf.unique();
  auto overlaps = [&](const Array* a) {
    return a->bytes() < leaf.bytes() + leaf.nbytes() && leaf.bytes() < a->bytes() + a->nbytes();
  };
  return mine && leaf.dtype() == product.term->tensor_type().dtype &&
         leaf.shape() == product.shape && std::ranges::none_of(product.args, overlaps);
}

void Function::run_dot_epilogue(Instruction& in) {
  for (int j : in.followers) code_[j].ran = false;
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
  for (std::size_t k = 0; k < group.operands.size(); ++k)
    group.args[k] = &slots_[group.operands[k]];
  // The group reads the product's slot: the product alone, or (added in
  // place) the sum, with what is left of the group as the epilogue.
  Array& result = slots_[product.out];
  const auto leaf = std::ranges::find(group.operands, product.out) - group.operands.begin();
  auto fits = [&](std::span<const FusedOp> program) {
    return program.empty() || (plan_fused_step(group) && group.shape == product.shape &&
                               group.layout.kinds[leaf] == LeafKind::Full);
  };
  bool accumulate = may_accumulate(in);
  if (accumulate) {
    result = slots_[group.operands[in.accumulate]];
    accumulate = fits(in.rest);
  }
  if (!accumulate) {
    result = context_->pool.take(product.term->tensor_type().dtype, product.shape);
    if (!fits(group.program)) {
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
  }
  const std::span<const FusedOp> program = accumulate ? in.rest : group.program;
  // One pointer captured: std::function holds it without a heap allocation
  // (three references, the lambda's first form, allocated at every step
  // of a loop).
  struct Pass {
    std::span<const FusedOp> program;
    Instruction& group;
    Array& result;
  } pass{program, group, result};
  const DotEpilogue epilogue = [p = &pass](std::int64_t first, std::int64_t count) {
    detail::run_fused_range(p->program, p->group.args, p->group.layout, p->group.compute, p->result,
                            first, count);
  };
  DotRows rows;
  const bool by_rows = plan_followers(in, result, rows);
  try {
    detail::run_dot(product.term, product.args, result, product.trans,
                    program.empty() ? nullptr : &epilogue, by_rows ? &rows : nullptr, accumulate,
                    kept_b(product));
  } catch (const RuntimeError& e) {
    context_->fail_at(product.term, e.what());
  }
  slots_[in.out] = std::move(result);
}

}  // namespace eqsat::backend::detail
