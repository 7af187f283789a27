// Program: a graph compiled once for the CPU executor and run many times.
//
// Compiling fixes everything that does not depend on input values: the
// order of evaluation, the slot each value lives in, after which
// instruction each buffer is released to a pool (so the next value of the
// same size reuses it), which elementwise ops may write into a dying
// operand's buffer, and one compiled body per `fn` (every scan or call of a
// def shares it). Running checks the inputs' dtypes and shapes, then
// executes the instructions on Eigen kernels; scan loops reuse preallocated
// buffers, so after their first step they allocate nothing.
//
//   ops::Graph g = ...;                       // e.g. parse_graph_file("f.eg")
//   backend::Program p = backend::compile(g);
//   std::vector<ops::Array> out = p.run({x, y});   // in g.inputs order
//   out = p.run({x2, y2});                    // same program, new inputs
//
// For checking rewrites, `evaluate` runs any terms over bound leaves:
//
//   TermRef x = Term::input("x", {DType::F64, {3}});
//   TermRef lhs = Term::make(OpKind::Log, {}, {Term::make(OpKind::Exp, {}, {x})});
//   auto [v] = evaluate({lhs}, {{x, ops::Array::filled(DType::F64, {3}, 0.5)}});
//
// Errors in the input (wrong count, dtype or shape) and run-time errors of
// ops (index out of range, shapes that do not broadcast, a reshape that
// does not fit, :n-steps longer than a sequence) throw RuntimeError; its
// message names the op and, when the graph came from a file, starts with
// the op's position: `FILE:LINE:COL: error: OP: MESSAGE`. A graph that
// still contains `grad` is refused by compile. A Program is not
// thread-safe: run it from one thread at a time.
#pragma once

#include "backend/op_timing.hpp"
#include "ops/array.hpp"
#include "ops/graph.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace eqsat::backend {

namespace detail {
struct ProgramState;
}

class Program {
 public:
  // Runs the program on `inputs`, given in the graph's input order, and
  // returns one array per output, in output order. Every returned array
  // owns its buffer (none aliases an input or a constant).
  std::vector<ops::Array> run(std::vector<ops::Array> inputs);

  const std::vector<ops::TermRef>& inputs() const;
  const std::vector<std::string>& output_names() const;

  // Buffers allocated from the system so far (not counting reuse from the
  // pool); a measure of the memory plan, used by the tests.
  std::uint64_t buffers_allocated() const;
  // Frees the buffers the program keeps for reuse between runs, its
  // products' copies of constant weights included (the next run allocates
  // them again).
  void release_memory();
  // Refuses a run whose values need new buffers of more than `bytes` in
  // all (nullopt: no limit), checked as each size becomes known: a
  // RuntimeError at the op that would pass it (`--memory-limit`).
  void set_memory_limit(std::optional<std::uint64_t> bytes);
  // Bytes of the buffers allocated from the system so far (values and
  // outputs the program computed, and its products' copies of constant
  // weights; inputs and kernels' temporaries excluded): with buffers
  // reused across runs, the program's peak.
  std::uint64_t bytes_allocated() const;
  // Per-instruction timing of the top-level program (a loop or call counts
  // as one instruction, its body included). Off by default, and then free:
  // no clock is read. Turning it on clears the timings.
  void set_profiling(bool on);
  // One entry per top-level instruction, in execution order, accumulated
  // over the runs since profiling was turned on.
  const std::vector<OpTiming>& op_timings() const;
  // Number of instructions of the top-level program (bodies excluded).
  std::size_t num_instructions() const;
  // Number of distinct bodies (`fn`s) compiled for scans and calls.
  std::size_t num_bodies() const;

 private:
  friend Program compile(const ops::Graph& graph);
  std::shared_ptr<detail::ProgramState> state_;
};

// Compiles `graph`. Throws RuntimeError for a graph the executor cannot run
// (one that still contains `grad`).
Program compile(const ops::Graph& graph);

// Evaluates `terms` with each leaf of `bindings` (an Input, or a Nominal)
// bound to its array; one array per term. Throws RuntimeError when a leaf
// the terms use is not bound or a value does not fit its leaf's type.
std::vector<ops::Array> evaluate(const std::vector<ops::TermRef>& terms,
                                 const std::vector<std::pair<ops::TermRef, ops::Array>>& bindings);

}  // namespace eqsat::backend
