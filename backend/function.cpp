#include "function.hpp"

#include "kernel_support.hpp"
#include "kernels.hpp"
#include "runtime_error.hpp"
#include "scan_rows.hpp"

#include "ops/op_dispatch.hpp"
#include "ops/post_order.hpp"
#include "ops/type_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <optional>
#include <utility>

namespace eqsat::backend::detail {

using ops::Array;
using ops::OpKind;
using ops::TermRef;

namespace {

// `fn` compiled as a function of its parameters.
std::shared_ptr<Function> compile_body(Context& context, TermRef fn) {
  const auto& types = fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
  std::vector<TermRef> params;
  for (std::size_t k = 0; k < types.size(); ++k)
    params.push_back(ops::Term::nominal(static_cast<std::int64_t>(k), types[k]));
  std::vector<TermRef> outputs(fn->operands().begin(), fn->operands().end());
  return std::make_shared<Function>(context, std::move(params), std::move(outputs));
}

}  // namespace

Function& Context::body(TermRef fn) {
  if (auto it = bodies.find(fn); it != bodies.end()) return *it->second;
  return *bodies.emplace(fn, compile_body(*this, fn)).first->second;
}

Function& Context::replica(TermRef fn, std::size_t k) {
  if (k == 0) return body(fn);
  auto& copies = replicas[fn];
  while (copies.size() < k) {
    auto own = std::make_unique<Context>();
    own->pool.count_in(&pool);
    own->locations = locations;
    std::shared_ptr<Function> copy = compile_body(*own, fn);
    copies.push_back({std::move(own), std::move(copy)});
  }
  return *copies[k - 1].body;
}

void Context::clear_pools() {
  pool.clear();
  for (auto& [fn, body] : bodies) body->release_copies();
  for (auto& [fn, copies] : replicas)
    for (Replica& r : copies) {
      r.body->release_copies();
      r.context->clear_pools();
    }
}

void Context::fail_at(TermRef term, const std::string& message) const {
  if (auto it = locations.find(term); it != locations.end())
    throw RuntimeError(ops::Diagnostic{it->second, message}.to_string(), true);
  throw RuntimeError(message);
}

namespace {

// Operands an instruction reads: all, except the body of a scan or call.
std::span<const TermRef> value_operands(TermRef t) {
  const bool has_body = t->kind() == OpKind::Scan || t->kind() == OpKind::Call;
  return t->operands().subspan(has_body ? 1 : 0);
}

// Every term `outputs` reach without entering bodies, operands first: the
// order a left-to-right recursive evaluation finishes them (ops/post_order.hpp,
// the one traversal), so a value is computed close to where it is read.
std::vector<TermRef> evaluation_order(const std::vector<TermRef>& outputs) {
  std::vector<TermRef> order;
  ops::for_each_post_order(outputs, ops::Bodies::Skip, [&](TermRef t) {
    if (t->kind() != OpKind::Fn) order.push_back(t);
  });
  return order;
}

// Whether the ops of group `g` are computed by kernels (not leaves,
// bodies, loops, calls, tuple elements or grad).
constexpr bool has_kernel(ops::OpGroup g) {
  return g != ops::OpGroup::Leaf && g != ops::OpGroup::Control && g != ops::OpGroup::Gradient;
}

std::string leaf_name(TermRef t) {
  if (t->kind() == OpKind::Input)
    return fmt::format("input {}", t->attrs().get<std::string>(ops::AttrKey::Name));
  return fmt::format("parameter {}", t->attrs().get<std::int64_t>(ops::AttrKey::Slot));
}

}  // namespace

Function::Function(Context& context, std::vector<TermRef> params, std::vector<TermRef> outputs)
    : context_(&context), num_params_(params.size()) {
  std::unordered_map<TermRef, int> slot_of;
  auto new_slots = [&](int n) {
    const int first = static_cast<int>(slots_.size());
    slots_.resize(slots_.size() + n);
    pinned_.resize(slots_.size(), false);
    return first;
  };
  new_slots(static_cast<int>(params.size()));
  for (std::size_t i = 0; i < params.size(); ++i) {
    slot_of.emplace(params[i], static_cast<int>(i));
    pinned_[i] = true;
  }
  const bool body = !params.empty() && params[0]->kind() == OpKind::Nominal;

  for (TermRef t : evaluation_order(outputs)) {
    if (slot_of.contains(t)) continue;
    // A value placed without an instruction (a parameter, a constant, a
    // tuple element) or a term that cannot run. Every op is named
    // (dispatch_op): those of the groups no kernel computes each say here
    // what they are, so a new one does not compile until it does; every
    // other op is an instruction.
    const bool placed =
        ops::dispatch_op(t->kind(), [&]<OpKind K>(std::integral_constant<OpKind, K>) -> bool {
          if constexpr (K == OpKind::Input) {
            context.fail_at(t, fmt::format("{} is not given a value", leaf_name(t)));
          } else if constexpr (K == OpKind::Nominal) {
            const auto k = t->attrs().get<std::int64_t>(ops::AttrKey::Slot);
            if (!body || k >= static_cast<std::int64_t>(params.size()))
              context.fail_at(t, fmt::format("{} is not given a value", leaf_name(t)));
            slot_of.emplace(t, static_cast<int>(k));
            return true;
          } else if constexpr (K == OpKind::Const) {
            const int s = new_slots(1);
            slots_[s] = *t->const_value();
            pinned_[s] = true;
            slot_of.emplace(t, s);
            return true;
          } else if constexpr (K == OpKind::Get) {
            slot_of.emplace(
                t, slot_of.at(t->operand(0)) +
                       static_cast<int>(t->attrs().get<std::int64_t>(ops::AttrKey::Index)));
            return true;
          } else if constexpr (K == OpKind::Grad) {
            context.fail_at(t,
                            "grad: cannot run a graph that still contains grad (the optimizer "
                            "expands gradients: run without --no-opt)");
          } else if constexpr (K == OpKind::Fn) {
            context.fail_at(t, "fn: a body is not a value; call it or scan over it");
          } else {
            static_assert(K == OpKind::Scan || K == OpKind::Call || has_kernel(ops::group_of(K)),
                          "an op no kernel computes: say how the executor gets its value");
            return false;
          }
        });
    if (placed) continue;
    Instruction in;
    in.term = t;
    for (TermRef operand : value_operands(t)) in.operands.push_back(slot_of.at(operand));
    if (t->kind() == OpKind::Scan || t->kind() == OpKind::Call) {
      in.step = t->kind() == OpKind::Scan ? Step::Scan : Step::Call;
      in.body = &context.body(t->operand(0));
      in.by_rows = t->kind() == OpKind::Scan && scan_rows_independent(t);
      in.num_out =
          t->is_tuple() ? static_cast<int>(std::get<ops::TupleType>(t->type()).elements.size()) : 1;
    } else {
      in.step = is_view(t) ? Step::View : Step::Kernel;
    }
    in.out = new_slots(in.num_out);
    in.args.resize(in.operands.size());
    slot_of.emplace(t, in.out);
    code_.push_back(std::move(in));
  }

  for (TermRef t : outputs) {
    if (t->is_tuple())
      context.fail_at(t, "an output is a tuple; select an element with (get I ...)");
    output_slots_.push_back(slot_of.at(t));
  }
  fold_constants();
  fuse_elementwise(output_slots_);
  const auto reshaped = absorb_transposes(output_slots_);
  fuse_dot_epilogues(output_slots_);
  chain_row_followers();
  // A product left on its own runs as Step::Dot, which may keep a copy of
  // its b between runs (kept_b), as one with an epilogue does.
  for (Instruction& in : code_)
    if (in.step == Step::Kernel && in.term->kind() == OpKind::Dot) in.step = Step::Dot;
  // Each slot's static dims (a tuple's elements have none: never a leaf
  // of a group).
  std::vector<ops::Dims> dims(slots_.size());
  for (const auto& [t, s] : slot_of)
    if (!t->is_tuple()) dims[s] = t->tensor_type().dims;
  // A transpose absorb_transposes changed holds its new term's shape.
  for (const auto& [s, t] : reshaped) dims[s] = t->tensor_type().dims;
  plan_buffers(dims);
  // An output slot the frame clears after a run gives its value up at its
  // last mention (Function::run): no copy of its shape.
  for (std::size_t i = 0; i < output_slots_.size(); ++i) {
    const auto s = static_cast<std::size_t>(output_slots_[i]);
    const bool again = std::find(output_slots_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                 output_slots_.end(), output_slots_[i]) != output_slots_.end();
    output_moves_.push_back((!pinned_[s] || s < num_params_) && !again);
  }
  if (body) compile_scalar_body(params);
}

// Liveness: a slot dies after its last reader, or right after its
// producer when nothing reads it; outputs and pinned slots never die.
// In place: an elementwise result may take the buffer of an operand that
// dies here and is read only once by this instruction; at run time the
// first such operand with the result's dtype and shape and no other
// holder is taken. Run once the code is final (after fusion).
void Function::plan_buffers(const std::vector<ops::Dims>& dims) {
  std::vector<int> producer(slots_.size(), -1);  // per slot: the instruction writing it
  for (int i = 0; i < static_cast<int>(code_.size()); ++i)
    for (int k = 0; k < code_[i].num_out; ++k) producer[code_[i].out + k] = i;

  constexpr int kForever = std::numeric_limits<int>::max();
  std::vector<int> last_use(slots_.size(), -1);
  for (int i = 0; i < static_cast<int>(code_.size()); ++i)
    for (int s : code_[i].operands) last_use[s] = i;
  for (int s : output_slots_) last_use[s] = kForever;
  for (int s = 0; s < static_cast<int>(slots_.size()); ++s) {
    if (pinned_[s] || last_use[s] == kForever || producer[s] < 0) continue;
    code_[last_use[s] >= 0 ? last_use[s] : producer[s]].release.push_back(s);
  }
  std::vector<int> readers(slots_.size(), 0);
  for (const Instruction& in : code_)
    for (int s : in.operands) ++readers[s];
  for (int i = 0; i < static_cast<int>(code_.size()); ++i) {
    Instruction& in = code_[i];
    if (in.step == Step::DotEpilogue) {
      // A leaf the product may be added into: it dies here, no other
      // operand of this instruction is it, it is not a constant, not a
      // param read elsewhere (a view of it), and its static dims are the
      // product's (a broadcast bias is not).
      const Instruction& group = in.members[1];
      const Instruction& product = in.members[0];
      auto eligible = [&](int leaf) {
        const int s = group.operands[leaf];
        const bool param = s < static_cast<int>(num_params_);
        return s != product.out && last_use[s] == i && std::ranges::count(in.operands, s) == 1 &&
               (!pinned_[s] || (param && readers[s] == 1)) &&
               dims[s] == product.term->tensor_type().dims;
      };
      const auto at = std::ranges::find(group.operands, product.out) - group.operands.begin();
      if (auto added = without_added_leaf(group.program, static_cast<int>(at), eligible)) {
        in.accumulate = added->leaf;
        in.rest = std::move(added->rest);
      }
      continue;
    }
    if (in.step != Step::Kernel && in.step != Step::Fused) continue;
    for (std::size_t k = 0; k < in.operands.size(); ++k) {
      const int s = in.operands[k];
      if (pinned_[s] || last_use[s] != i || std::ranges::count(in.operands, s) != 1) continue;
      in.in_place.push_back(static_cast<int>(k));
    }
  }
}

void Function::compile_scalar_body(const std::vector<TermRef>& params) {
  const ops::DType dtype = params[0]->tensor_type().dtype;
  if (dtype != ops::DType::F32 && dtype != ops::DType::F64) return;
  auto scalar = [&](TermRef t) {
    return !t->is_tuple() && t->tensor_type().rank() == 0 && t->tensor_type().dtype == dtype;
  };
  auto body = std::make_unique<ScalarBody>();
  body->dtype = dtype;
  body->num_params = static_cast<int>(params.size());
  std::vector<int> register_of(slots_.size(), -1);
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (!scalar(params[p])) return;
    register_of[p] = static_cast<int>(p);
    body->constants.push_back(0);
  }
  auto new_register = [&](double value) {
    body->constants.push_back(value);
    return static_cast<int>(body->constants.size()) - 1;
  };
  for (std::size_t s = params.size(); s < slots_.size(); ++s) {
    if (!pinned_[s]) continue;
    if (slots_[s].rank() != 0 || slots_[s].dtype() != dtype) continue;
    register_of[s] = new_register(slots_[s].element(0));
  }
  for (const Instruction& in : code_) {
    if (in.step != Step::Fused) return;
    for (const Instruction& member : in.members)
      if (!scalar(member.term)) return;
    std::vector<int> op_register;
    for (std::size_t k = 0; k < in.program.size(); ++k) {
      const FusedOp& op = in.program[k];
      if (op.arity > 2) return;  // where: not scalar register code
      ScalarOp sop{op.kind, op.arity, 0, 0, 0};
      int* src[2] = {&sop.a, &sop.b};
      for (int j = 0; j < op.arity; ++j) {
        const FusedSource& from = op.src[j];
        const int r = from.leaf ? register_of[in.operands[from.index]] : op_register[from.index];
        if (r < 0) return;
        *src[j] = r;
      }
      sop.dst = new_register(0);
      op_register.push_back(sop.dst);
      body->ops.push_back(sop);
    }
    register_of[in.out] = op_register.back();
  }
  for (int s : output_slots_) {
    if (register_of[s] < 0) return;
    body->outputs.push_back(register_of[s]);
  }
  scalar_ = std::move(body);
}

// The dtype a fusable instruction computes in (detail::fused_compute_dtype).
std::optional<ops::DType> Function::fused_compute_dtype(const Instruction& in) {
  if (in.step != Step::Kernel) return std::nullopt;
  const TermRef t = in.term;
  std::vector<ops::DType> operands;
  for (TermRef o : t->operands()) operands.push_back(o->tensor_type().dtype);
  return detail::fused_compute_dtype(t->kind(), operands, t->tensor_type().dtype);
}

// A float reduction over trailing axes may absorb the group computing
// its operand: it then reduces each row as the row is computed.
bool Function::fused_reduction_root(const Instruction& in) {
  if (in.step != Step::Kernel || ops::op_info(in.term->kind()).group != ops::OpGroup::Reduction)
    return false;
  const auto& axes = in.term->attrs().get<ops::IntList>(ops::AttrKey::Axis);
  const ops::TensorType& x = in.term->operand(0)->tensor_type();
  return detail::fused_reduction(in.term->kind(), axes, x.rank(), x.dtype,
                                 in.term->tensor_type().dtype);
}

// True when `in` is a `slice` of the last axis with step 1 of an operand
// of `dtype`: a fused group computing in `dtype` reads the operand through
// a window instead of the slice's copy (an LSTM's gates).
bool Function::window_of(const Instruction& in, ops::DType dtype) {
  const TermRef t = in.term;
  if (in.step != Step::Kernel || t->kind() != OpKind::Slice) return false;
  const ops::TensorType& x = t->operand(0)->tensor_type();
  const auto axis = t->attrs().get<std::int64_t>(ops::AttrKey::Axis);
  const bool unit_step =
      !t->attrs().has(ops::AttrKey::Step) || t->attrs().get<std::int64_t>(ops::AttrKey::Step) == 1;
  return x.dtype == dtype && unit_step && axis == static_cast<std::int64_t>(x.rank()) - 1;
}

// The fused instruction for the group (instruction indices into `old`,
// ascending) rooted at `root`: its members move out of `old`.
Function::Instruction Function::fuse_group(std::vector<Instruction>& old,
                                           const std::vector<int>& group, int root, bool reduces) {
  Instruction fused;
  fused.step = reduces ? Step::FusedReduce : Step::Fused;
  fused.term = old[root].term;
  fused.out = old[root].out;
  fused.compute = old[root].compute;
  std::unordered_map<int, int> register_of;  // member result slot -> its op
  std::unordered_map<int, int> window_leaf;  // absorbed slice's result slot -> its leaf
  // The leaf for slot s read through `window` (a slice term, or null).
  auto leaf_of = [&](int s, TermRef window) {
    for (std::size_t k = 0; k < fused.operands.size(); ++k)
      if (fused.operands[k] == s && fused.windows[k] == window) return static_cast<int>(k);
    fused.operands.push_back(s);
    fused.windows.push_back(window);
    return static_cast<int>(fused.operands.size()) - 1;
  };
  for (int m : group) {
    Instruction& member = old[m];
    if (m != root && window_of(member, fused.compute)) {
      window_leaf.emplace(member.out, leaf_of(member.operands[0], member.term));
    } else if (m != root || !reduces) {
      FusedOp op{member.term->kind(), static_cast<int>(member.operands.size()), {}};
      for (std::size_t k = 0; k < member.operands.size(); ++k) {
        const int s = member.operands[k];
        if (auto it = register_of.find(s); it != register_of.end())
          op.src[k] = {false, it->second};
        else if (auto w = window_leaf.find(s); w != window_leaf.end())
          op.src[k] = {true, w->second};
        else
          op.src[k] = {true, leaf_of(s, nullptr)};
      }
      register_of.emplace(member.out, static_cast<int>(fused.program.size()));
      fused.program.push_back(op);
    }
    fused.members.push_back(std::move(member));
  }
  pair_sin_cos(fused.program);
  allocate_registers(fused.program);
  fused.work = fused_work(fused.program);
  fused.args.resize(fused.operands.size());
  return fused;
}

void Function::fuse_elementwise(const std::vector<int>& output_slots) {
  // Readers per slot; an output counts as an extra reader.
  std::vector<int> readers(slots_.size(), 0), producer(slots_.size(), -1);
  for (int i = 0; i < static_cast<int>(code_.size()); ++i) {
    for (int s : code_[i].operands) ++readers[s];
    if (code_[i].num_out == 1) producer[code_[i].out] = i;
  }
  for (int s : output_slots) ++readers[s];
  // An instruction joins a group computing in `dtype` when it computes in
  // that dtype, or in bool (its booleans are then held as 0 and 1).
  auto joins = [&](const Instruction& in, ops::DType dtype, bool reduces) {
    const auto d = fused_compute_dtype(in);
    return (d && (*d == dtype || *d == ops::DType::Bool)) || (!reduces && window_of(in, dtype));
  };
  // Groups, from the last instruction back: a root absorbs the candidates
  // producing its operands when it is their only reader, transitively.
  std::vector<int> root_of(code_.size(), -1);
  std::vector<std::vector<int>> groups(code_.size());
  for (int i = static_cast<int>(code_.size()) - 1; i >= 0; --i) {
    const bool reduces = fused_reduction_root(code_[i]);
    if (root_of[i] >= 0 || !(reduces || fused_compute_dtype(code_[i]))) continue;
    root_of[i] = i;
    const ops::DType dtype =
        reduces ? code_[i].term->tensor_type().dtype : *fused_compute_dtype(code_[i]);
    code_[i].compute = dtype;
    std::vector<int>& group = groups[i];
    std::vector<int> todo{i};
    while (!todo.empty()) {
      const int m = todo.back();
      todo.pop_back();
      group.push_back(m);
      if (window_of(code_[m], dtype)) continue;  // its operand is a leaf
      for (int s : code_[m].operands) {
        const int j = producer[s];
        if (j < 0 || root_of[j] >= 0 || readers[s] != 1 || !joins(code_[j], dtype, reduces) ||
            group.size() + todo.size() >= kMaxFusedOps + (reduces ? 1 : 0))
          continue;
        root_of[j] = i;
        todo.push_back(j);
      }
    }
    std::ranges::sort(group);
  }
  std::vector<Instruction> old = std::move(code_);
  code_.clear();
  for (int i = 0; i < static_cast<int>(old.size()); ++i) {
    const bool reduces = root_of[i] == i && fused_reduction_root(old[i]);
    if (root_of[i] != i || (reduces && groups[i].size() < 2)) {
      if (root_of[i] < 0 || root_of[i] == i) code_.push_back(std::move(old[i]));
      continue;
    }
    code_.push_back(fuse_group(old, groups[i], i, reduces));
  }
}

namespace {

// True when `t` swaps the last two axes of an operand of rank >= 2 and
// keeps the others: the transpose a matrix product can read as a flag.
bool swaps_last_two(TermRef t) {
  if (t->kind() != OpKind::Transpose) return false;
  const auto& perm = t->attrs().get<ops::IntList>(ops::AttrKey::Perm);
  const auto r = static_cast<std::int64_t>(perm.size());
  if (r < 2 || perm[r - 2] != r - 1 || perm[r - 1] != r - 2) return false;
  for (std::int64_t i = 0; i + 2 < r; ++i)
    if (perm[i] != i) return false;
  return true;
}

// When `t` moves its operand's last axis to the next-to-last place (an
// attention's keys split into heads, (seq, heads, dh) -> (heads, dh, seq)):
// the permutation that keeps the last axis last and then needs only a swap
// of the last two, t = swap(transpose(x, kept)). Else nullopt.
std::optional<ops::IntList> last_axis_kept(TermRef t) {
  if (t->kind() != OpKind::Transpose) return std::nullopt;
  ops::IntList perm = t->attrs().get<ops::IntList>(ops::AttrKey::Perm);
  const auto r = static_cast<std::int64_t>(perm.size());
  if (r < 2 || perm[r - 2] != r - 1) return std::nullopt;
  std::swap(perm[r - 2], perm[r - 1]);
  return perm;
}

}  // namespace

std::vector<std::pair<int, TermRef>> Function::absorb_transposes(
    const std::vector<int>& output_slots) {
  // A dot reading `(transpose y)` of a matrix (or a stack of them) reads
  // `y` with a transpose flag instead; the transpose is dropped when no
  // other instruction (or output) reads it, so its copy is never made.
  // A transpose that also moves other axes but brings the last one to the
  // next-to-last place, read by the dot alone, becomes the transpose that
  // keeps the last axis last (a copy of whole rows, where the other read
  // the source a row apart for every element: 512 tokens' keys in 8 heads
  // copied in 61 us instead of 105), which the dot reads with the flag.
  std::vector<int> readers(slots_.size(), 0), producer(slots_.size(), -1);
  for (int i = 0; i < static_cast<int>(code_.size()); ++i) {
    for (int s : code_[i].operands) ++readers[s];
    if (code_[i].num_out == 1) producer[code_[i].out] = i;
  }
  for (int s : output_slots) ++readers[s];
  std::vector<bool> dropped(code_.size(), false);
  std::vector<std::pair<int, TermRef>> reshaped;
  for (Instruction& in : code_) {
    if (in.step != Step::Kernel || in.term->kind() != OpKind::Dot) continue;
    for (int k = 0; k < 2; ++k) {
      const int j = producer[in.operands[k]];
      if (j < 0 || code_[j].step != Step::Kernel) continue;
      const TermRef t = code_[j].term;
      if (!swaps_last_two(t)) {
        const auto kept = last_axis_kept(t);
        if (!kept || readers[in.operands[k]] != 1) continue;
        code_[j].term =
            ops::Term::make(OpKind::Transpose, {{ops::AttrKey::Perm, *kept}}, {t->operands()[0]});
        if (auto at = context_->locations.find(t); at != context_->locations.end())
          context_->locations.emplace(code_[j].term, at->second);
        reshaped.emplace_back(code_[j].out, code_[j].term);
        in.step = Step::Dot;
        in.trans[k] = true;
        continue;
      }
      in.step = Step::Dot;
      in.trans[k] = true;
      if (--readers[in.operands[k]] == 0) dropped[j] = true;
      in.operands[k] = code_[j].operands[0];
    }
  }
  std::vector<Instruction> old = std::move(code_);
  code_.clear();
  for (std::size_t i = 0; i < old.size(); ++i)
    if (!dropped[i]) code_.push_back(std::move(old[i]));
  return reshaped;
}

void Function::execute(Instruction& in) {
  switch (in.step) {
    case Step::Scan:
      return run_scan(in);
    case Step::Call:
      return run_call(in);
    case Step::Fused:
      return run_fused(in);
    case Step::FusedReduce:
      return run_fused_reduction(in);
    case Step::DotEpilogue:
      return run_dot_epilogue(in);
    case Step::Dot:
      return run_dot(in, nullptr);
    default:
      break;
  }
  for (std::size_t k = 0; k < in.operands.size(); ++k) in.args[k] = &slots_[in.operands[k]];
  result_shape(in.term, in.args, in.shape);
  Array& dst = slots_[in.out];
  if (in.step == Step::View) {
    dst = slots_[in.operands[0]].reshaped(in.shape);
    return;
  }
  const ops::DType dtype = in.term->tensor_type().dtype;
  for (int k : in.in_place) {
    const Array& a = *in.args[k];
    if (a.unique() && may_write_in_place(in.term, k, a, dtype, in.shape)) {
      dst = a;
      run_kernel(in.term, in.args, dst);
      return;
    }
  }
  dst = context_->pool.take(dtype, in.shape);
  run_kernel(in.term, in.args, dst);
}

void Function::run_call(Instruction& in) {
  body_args_.clear();
  for (int s : in.operands) body_args_.push_back(&slots_[s]);
  // The def's body was typed (and optimized) for its parameters' types: an
  // argument whose static type is less precise is checked here, as a graph
  // input is (docs/architecture.md decision 13).
  const auto& params =
      in.term->operand(0)->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
  for (std::size_t k = 0; k < params.size() && k < body_args_.size(); ++k) {
    const Dims& want = params[k].dims;
    const Dims& got = body_args_[k]->shape();
    bool fits = want.size() == got.size();
    for (std::size_t a = 0; fits && a < want.size(); ++a)
      fits = want[a] == ops::kUnknownDim || want[a] == got[a];
    if (!fits)
      throw RuntimeError(
          fmt::format("call: argument {} has shape ({}) where the def's parameter is {}", k + 1,
                      fmt::join(got, " "), ops::to_string(params[k])));
  }
  in.body->run(body_args_, body_outputs_);
  for (int i = 0; i < in.num_out; ++i) slots_[in.out + i] = std::move(body_outputs_[i]);
}

std::vector<std::string> Function::instruction_labels() const {
  auto names = [](const std::vector<FusedOp>& program) {
    std::string ops;
    for (const FusedOp& op : program)
      ops += fmt::format("{}{}", ops.empty() ? "" : " ", ops::op_name(op.kind));
    return ops;
  };
  std::vector<std::string> labels;
  for (const Instruction& in : code_) {
    const Instruction& shown = in.step == Step::DotEpilogue ? in.members[0] : in;
    std::string label(shown.term->info().name);
    if (in.step == Step::Fused) label = fmt::format("fused({})", names(in.program));
    if (in.step == Step::FusedReduce) label += fmt::format("(fused: {})", names(in.program));
    // A product's flags: "dot(transposed: b, epilogue: add maximum)".
    std::vector<std::string> flags;
    if (shown.trans[0] || shown.trans[1])
      flags.push_back(
          fmt::format("transposed:{}{}", shown.trans[0] ? " a" : "", shown.trans[1] ? " b" : ""));
    if (in.step == Step::DotEpilogue)
      flags.push_back(fmt::format("epilogue: {}", names(in.members[1].program)));
    if (in.by_rows) flags.push_back("by rows");
    if (!in.followers.empty())
      flags.push_back(fmt::format("then by rows: {} group{}", in.followers.size(),
                                  in.followers.size() == 1 ? "" : "s"));
    if (!flags.empty()) label += fmt::format("({})", fmt::join(flags, ", "));
    if (auto it = context_->locations.find(shown.term); it != context_->locations.end())
      label += fmt::format(" at {}", it->second.text());
    labels.push_back(std::move(label));
  }
  return labels;
}

void Function::run(std::span<const Array* const> params, std::vector<Array>& outputs,
                   std::span<const ParamUse> uses) {
  for (std::size_t p = 0; p < num_params_; ++p) slots_[p] = *params[p];
  uses_ = uses;
  auto clear_frame = [&] {
    for (std::size_t s = 0; s < slots_.size(); ++s)
      if (!pinned_[s] || s < num_params_) slots_[s].release();
  };
  for (Instruction& in : code_) {
    try {
      if (std::exchange(in.ran, false)) {
        // Its product ran it, a block of rows at a time (plan_followers).
      } else if (timings_) {
        const auto start = std::chrono::steady_clock::now();
        execute(in);
        OpTiming& t = (*timings_)[&in - code_.data()];
        t.seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ++t.calls;
      } else {
        execute(in);
      }
    } catch (const RuntimeError& e) {
      clear_frame();
      if (e.located()) throw;
      context_->fail_at(in.term, e.what());
    } catch (const ops::TypeError& e) {
      clear_frame();
      context_->fail_at(in.term, fmt::format("{}: {}", in.term->info().name, e.what()));
    } catch (const std::bad_alloc&) {
      clear_frame();
      context_->fail_at(in.term, fmt::format("{}: out of memory", in.term->info().name));
    }
    for (int s : in.release) context_->pool.give(std::move(slots_[s]));
  }
  outputs.resize(output_slots_.size());
  for (std::size_t i = 0; i < output_slots_.size(); ++i) {
    if (output_moves_[i])
      outputs[i] = std::move(slots_[output_slots_[i]]);
    else
      outputs[i] = slots_[output_slots_[i]];
  }
  clear_frame();
}

}  // namespace eqsat::backend::detail
