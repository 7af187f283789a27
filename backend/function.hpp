// Function: one compiled graph body — the top-level graph, a scan body or a
// def — as a straight-line list of instructions over numbered value slots.
// Compiling fixes the order of evaluation (a topological order from
// Boost.Graph), fuses chains of elementwise ops whose intermediate
// values have no other reader into one pass over memory, lets a `dot` read
// a transposed operand through the BLAS flag, applies an elementwise group
// reading a product's result to each block of the product as it is
// written (bias and activation in cache), runs the groups after it that
// line up with its rows on each block of rows too (an LSTM cell), and
// decides the slot each value lives in and after which instruction each
// slot dies (its buffer then returns to the pool). Internal to the backend; the public
// face is Program (program.hpp).
#pragma once

#include "buffer_pool.hpp"
#include "kernel_groups.hpp"
#include "op_timing.hpp"
#include "scalar_body.hpp"
#include "sgemm_rows_avx2.hpp"

#include "ops/graph.hpp"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace eqsat::backend::detail {

class Function;

// What every Function of one Program shares: the pool, the source
// positions for messages, and the compiled bodies by `fn` term (a body is
// compiled once, whatever number of scans or calls use it).
struct Context {
  BufferPool pool;
  std::unordered_map<ops::TermRef, ops::SourceLocation> locations;
  std::unordered_map<ops::TermRef, std::shared_ptr<Function>> bodies;

  // Copies of the compiled bodies, for a loop run as blocks of rows on
  // several threads at once (a Function runs one activation at a time):
  // per `fn`, copies 1, 2, ... (copy 0 is `bodies`' own), each in a
  // Context of its own whose pool counts in this one's.
  struct Replica {
    std::unique_ptr<Context> context;
    std::shared_ptr<Function> body;
  };
  std::unordered_map<ops::TermRef, std::vector<Replica>> replicas;

  // The compiled body of `fn` (compiling it on first use).
  Function& body(ops::TermRef fn);
  // Copy k of `fn`'s compiled body: body(fn) for k = 0, else one compiled
  // on first use that shares no state (pool included) with the others.
  Function& replica(ops::TermRef fn, std::size_t k);
  // Frees the cached buffers of this pool and the copies' pools, and the
  // copies of b the bodies' products keep (Function::release_copies).
  void clear_pools();
  // Throws RuntimeError with `message`, prefixed by `term`'s position.
  [[noreturn]] void fail_at(ops::TermRef term, const std::string& message) const;
};

// What a run may assume of each of its params (Function::run).
enum class ParamUse : std::uint8_t {
  // Nothing: it is only read.
  Read,
  // The caller gives up its values: a product may be added into it in
  // place (a loop's sequence rows nothing reads after the step).
  GivenUp,
  // The same values at every run until Function::start_loop (a loop's
  // non-sequence): a copy of it may be kept between runs.
  Invariant,
};

class Function {
 public:
  // Compiles `outputs` as a function of `params`: each param is a leaf
  // (an Input, or a Nominal whose slot is its position in a body).
  Function(Context& context, std::vector<ops::TermRef> params, std::vector<ops::TermRef> outputs);

  // Runs once. `params` must match the params' number (types are the
  // caller's business); `outputs` is resized and filled. Not reentrant: a
  // Function runs one activation at a time (graphs are acyclic, so a body
  // never runs inside itself). `uses`, when not empty, says per param what
  // the run may assume of it (Read when empty).
  void run(std::span<const ops::Array* const> params, std::vector<ops::Array>& outputs,
           std::span<const ParamUse> uses = {});
  // A loop starts: copies of Invariant params kept by earlier runs are
  // dropped (the arrays at those addresses may now hold other values);
  // copies of constants stay.
  void start_loop();
  // Frees the copies of b its products keep between runs (kept_b).
  void release_copies();

  std::size_t num_params() const { return num_params_; }
  // The Context it was compiled in (its pool is the one it takes from).
  Context& context() const { return *context_; }
  std::size_t num_instructions() const { return code_.size(); }

  // Per-instruction timing: with `timings` set (one entry per instruction,
  // labelled by instruction_labels), run adds each instruction's wall time
  // and call to its entry; with nullptr (the default) no clock is read.
  void set_timings(std::vector<OpTiming>* timings) { timings_ = timings; }
  // What each instruction runs: the op's name ("dot"), "fused(sin mul
  // exp)" for a fused group, "sum(fused: exp sub)" for a fused reduction,
  // "dot(transposed: b, epilogue: add maximum)" for a product's flags;
  // with the op's source position when it has one.
  std::vector<std::string> instruction_labels() const;

  // The body as scalar register code when every value in it is a single
  // float of one dtype and every op is fusable elementwise math (see
  // scalar_body.hpp); nullptr otherwise.
  const ScalarBody* scalar_body() const { return scalar_.get(); }

 private:
  enum class Step { Kernel, View, Scan, Call, Fused, FusedReduce, Dot, DotEpilogue };
  struct Instruction {
    Step step;
    ops::TermRef term;
    std::vector<int> operands;  // slots; for scan and call, the fn operand is left out
    int out = 0;                // first result slot
    int num_out = 1;
    std::vector<int> release;   // slots that die after this instruction
    std::vector<int> in_place;  // operand positions whose buffer may take the result
    // DotEpilogue whose group adds to the product a leaf that dies here,
    // read by nothing else (a param: by no other instruction): the leaf's
    // position in members[1].operands, into which the product may be added
    // in place (the libraries' beta of 1, no pass of its own), and the
    // group without that add (empty: nothing left), see without_added_leaf;
    // else -1.
    int accumulate = -1;
    std::vector<FusedOp> rest;
    Function* body = nullptr;              // scan and call
    bool by_rows = false;                  // Scan: its body keeps rows apart (scan_rows.hpp)
    DotTranspose trans{};                  // Dot: which operands are read transposed
    ops::DType compute = ops::DType::F64;  // Fused: the dtype the expression computes in
    // Fused: the expression over the operands (its leaves), and the
    // original instructions, run one by one when the leaves' shapes at run
    // time do not fit one pass (plan_fused). FusedReduce: the same, and
    // the reduction (the last member, `term`) reduces its rows.
    // DotEpilogue: members are the product (a Kernel or Dot step) and the
    // Fused group reading its result; `operands` are both members'
    // operands but the product's result (for liveness only).
    std::vector<FusedOp> program;
    std::vector<Instruction> members;
    // DotEpilogue: the Fused groups right after it (indices into code_)
    // that it may run a block of rows at a time, after each block of the
    // product (chain_row_followers), the first `followers_by_rows` of them
    // at this run (plan_followers). Fused: `ran` is set when its product
    // ran it, so it is skipped when its turn comes.
    std::vector<int> followers;
    std::size_t followers_by_rows = 0;
    bool ran = false;
    // Fused: per operand, the `slice` it is read through (a window of its
    // last axis, see window_of) or null.
    std::vector<ops::TermRef> windows;
    std::vector<LeafWindow> leaf_windows;  // scratch: the windows at run time
    FusedLayout layout;                    // scratch
    std::vector<const ops::Array*> args;   // scratch: operand values
    ops::Dims shape;                       // scratch: result shape
    // Fused and FusedReduce: the operands' shapes its plan (shape, layout,
    // leaf_windows) was made for, and whether it fit one pass; a loop's
    // body sees the same shapes at every step and plans once (plan_once).
    std::vector<ops::Dims> planned_for;
    bool planned = false, plan_fits = false;
    std::int64_t work = 0;  // Fused: fused_work of the program
    BStrips b_strips;       // Dot: b's copy when b is a constant or an Invariant param
  };

  void fold_constants();
  void fuse_elementwise(const std::vector<int>& output_slots);
  static std::optional<ops::DType> fused_compute_dtype(const Instruction& in);
  static bool fused_reduction_root(const Instruction& in);
  static bool window_of(const Instruction& in, ops::DType dtype);
  static Instruction fuse_group(std::vector<Instruction>& old, const std::vector<int>& group,
                                int root, bool reduces);
  std::vector<std::pair<int, TermRef>> absorb_transposes(const std::vector<int>& output_slots);
  void fuse_dot_epilogues(const std::vector<int>& output_slots);
  void chain_row_followers();
  bool plan_once(Instruction& in, bool (Function::*plan)(Instruction&));
  bool plan_fused_step(Instruction& in);
  bool plan_fused_layout(Instruction& in);
  bool plan_reduction_layout(Instruction& in);
  bool plan_followers(Instruction& in, ops::Array& result, DotRows& rows);
  void plan_buffers(const std::vector<ops::Dims>& dims);
  void compile_scalar_body(const std::vector<ops::TermRef>& params);
  void execute(Instruction& in);
  void run_fused(Instruction& in);
  void run_fused_reduction(Instruction& in);
  void run_members(Instruction& in);
  void run_dot(Instruction& in, const DotEpilogue* epilogue);
  void run_dot_epilogue(Instruction& in);
  bool may_accumulate(const Instruction& in) const;
  bool constant_b(const Instruction& product) const;
  BStrips* kept_b(Instruction& product);
  void run_scan(Instruction& in);
  void run_call(Instruction& in);

  Context* context_;
  std::size_t num_params_ = 0;
  std::vector<Instruction> code_;
  std::vector<ops::Array> slots_;  // the frame: one value per slot
  std::vector<bool> pinned_;       // params and constants: never released or overwritten
  std::vector<int> output_slots_;
  std::vector<bool> output_moves_;  // per output: moved out of its slot (see the constructor)
  std::vector<OpTiming>* timings_ = nullptr;
  std::unique_ptr<ScalarBody> scalar_;
  std::vector<ops::Array> body_outputs_;      // scratch for scan and call
  std::vector<const ops::Array*> body_args_;  // scratch for scan and call
  std::span<const ParamUse> uses_;            // what this run may assume of its params (run)
};

}  // namespace eqsat::backend::detail
