// The cost model of the CPU backend: what one op application is expected
// to cost the executor, in nanoseconds, from static shapes — flops weighted
// per op, bytes moved, and a fixed overhead per kernel call. Extraction
// minimizes the sum over the chosen DAG, so a shared value is paid once.
//
//   CostModel model;                      // default weights, documented below
//   double ns = model.op_cost(term);      // one application, operands excluded
//
// Loops: a scan's own cost is its per-step overhead times its trip count
// plus the bytes its outputs store (all steps, or the last k with :keep);
// the body's cost is multiplied by the trip count by the extractor (see
// `trip_count`). `grad` costs infinity: it never reaches the executor.
#pragma once

#include "ops/dtype.hpp"
#include "ops/term.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>

namespace eqsat::backend {

// What a scan's :n-steps operand gives away about the steps: its value
// when constant; the smallest constant of a `minimum` over it (at most);
// the largest constant of a `maximum` inside that `minimum` (at least), as
// scan-save-mem writes `(minimum N (maximum m i))`.
struct StepBounds {
  std::optional<std::int64_t> exact, at_most, at_least;

  // Reads them from `n`, a term or an e-class: `constant(x)` is x's integer
  // value when known, `forms(x, f)` calls f(kind, children) for each form
  // of x (a term has one, an e-class one per e-node).
  template <class Node, class Constant, class Forms>
  static StepBounds read(const Node& n, const Constant& constant, const Forms& forms) {
    return read(n, constant, forms,
                [&](const Node& k) { return largest_floor(k, constant, forms); });
  }
  // The same, with `floor(k)` giving largest_floor(k, ...): an e-class's
  // `minimum` forms may share operand classes of many forms each, which a
  // caller reads once each.
  template <class Node, class Constant, class Forms, class Floor>
  static StepBounds read(const Node& n, const Constant& constant, const Forms& forms,
                         const Floor& floor) {
    StepBounds b;
    b.exact = constant(n);
    forms(n, [&](ops::OpKind kind, const auto& children) {
      if (kind != ops::OpKind::Minimum) return;
      for (const auto& k : children) {
        if (const auto c = constant(k)) b.at_most = std::min(b.at_most.value_or(*c), *c);
        if (const std::optional<std::int64_t> c = floor(k))
          b.at_least = std::max(b.at_least.value_or(*c), *c);
      }
    });
    return b;
  }
  // The largest constant operand of the `maximum` forms of `k`.
  template <class Node, class Constant, class Forms>
  static std::optional<std::int64_t> largest_floor(const Node& k, const Constant& constant,
                                                   const Forms& forms) {
    std::optional<std::int64_t> at_least;
    forms(k, [&](ops::OpKind kind, const auto& bounds) {
      if (kind != ops::OpKind::Maximum) return;
      for (const auto& y : bounds)
        if (const auto c = constant(y)) at_least = std::max(at_least.value_or(*c), *c);
    });
    return at_least;
  }
};

// Tunable weights. The defaults were measured on the development machine
// (2 cores, AVX2) for contiguous f64 kernels; `bench/` can recalibrate them.
struct CostWeights {
  double call_overhead_ns = 36;        // dispatch and bookkeeping per kernel call
  double ns_per_byte = 0.065;          // memory traffic (read operands + write result)
  double ns_per_flop = 0.61;           // one simple arithmetic op per element
  double ns_per_transcendental = 2.7;  // exp, log, sin, tanh, ... per element
  // pow per element: about 5 exp on long f64 arrays, 3 to 6 on f32
  // (bench/README.md, "pow against nested squarings").
  double ns_per_pow = 13.5;
  // where per element, fused or not: about 12 adds, 1.5 exp (bench/README.md,
  // "where and pow against their rewrites").
  double ns_per_select = 4;
  double ns_per_gemm_flop = 0.016;     // matrix products run blocked and vectorized
  double scan_step_overhead_ns = 310;  // per iteration of a scan
  // Unknown dimensions count as this many elements.
  std::int64_t unknown_dim = 64;
  // Loops whose trip count cannot be proven count as this many steps.
  std::int64_t unknown_trip_count = 100;
};

inline constexpr double kInfiniteCost = std::numeric_limits<double>::infinity();

class CostModel {
 public:
  CostModel() = default;
  explicit CostModel(const CostWeights& weights) : w_(weights) {}

  // Cost of applying `kind` to operands of `operand_types`, producing
  // `result` — the operands' own costs excluded. Works for terms and for
  // e-nodes alike (both know their op and types).
  double op_cost(ops::OpKind kind, std::span<const ops::Type> operand_types,
                 const ops::Type& result) const;
  // A term's scan gets its exact trip count (see `trip_count(TermRef)`).
  double op_cost(ops::TermRef term) const;

  // How the executor runs an op inside a fused group (kernel_groups.hpp):
  // an elementwise op, comparison or `where` computing in `compute` on rows
  // of at least kShortRow elements (unknown dimensions count
  // `unknown_dim`); or, when `reduction`, a float reduction over trailing
  // axes that reduces its operand's group row by row as it is computed.
  struct FusedRole {
    ops::DType compute;
    bool reduction = false;
  };
  // The role of `kind` with attributes `attrs` in a fused group, or none.
  std::optional<FusedRole> fused_role(ops::OpKind kind, const ops::Attrs& attrs,
                                      std::span<const ops::Type> operand_types,
                                      const ops::Type& result) const;
  // True when an op of `role` reads operand `i`, of type `operand`, from a
  // register of its group (when the operand's group fuses): a reduction
  // its operand; an elementwise op an operand of its result's shape
  // computed in `role.compute` (or a comparison's booleans, held as 0 and 1).
  static bool reads_fused(const FusedRole& role, std::size_t i, const ops::Type& operand,
                          const ops::Type& result);
  // The share of a fused group one of its ops costs: its flops; the bytes
  // of the operands read from memory (not those whose bit is set in
  // `fused_operands`: values the group computes in registers); and, when
  // `materialized` (the group's last op, or a reduction, whose result is
  // written), the result's bytes and the group's one kernel call. So a
  // chain of cheap ops the backend runs in one pass (x¹⁶ as four
  // squarings) costs less than one pow, as it runs, and Σ exp(x) reads x
  // once and writes one number.
  double fused_op_cost(ops::OpKind kind, std::span<const ops::Type> operand_types,
                       const ops::Type& result, std::uint32_t fused_operands,
                       bool materialized) const;

  // A scan's own cost when it runs `trips` steps: the per-step overhead,
  // the rows of its sequences copied in at each step (one per tap; from
  // `operand_types`, the scan's operands, when given), and the bytes its
  // outputs store (a row per step, with :keep k at most k rows; rows
  // unknown statically count `trips`), so that a loop keeping fewer steps,
  // or reading fewer sequences, is cheaper.
  double scan_cost(std::int64_t trips, const ops::ScanSpec& spec, const ops::Type& result,
                   std::span<const ops::Type> operand_types = {}) const;

  // The number of steps a scan with this result type is expected to run,
  // from the leading dimension of its first output: exact unless that
  // output has :keep or the loop has :until.
  std::int64_t trip_count(const ops::Type& scan_result) const;
  // The same from the scan's layout, operand types and the value of its
  // :n-steps operand when known: exact whenever the steps are known
  // statically (an output keeping every step, a constant :n-steps, static
  // sequence lengths), `unknown_trip_count` otherwise; an :until loop
  // counts its bound when below `unknown_trip_count`. With only an upper
  // bound on a run-time :n-steps (`(minimum n 5)`), it counts that bound
  // likewise; with a lower bound too (`(minimum n (maximum 2 i))`), the
  // middle of the two, as nothing says where in between the value lies.
  std::int64_t trip_count(const ops::ScanSpec& spec, std::span<const ops::Type> operand_types,
                          const ops::Type& result, const StepBounds& n_steps) const;
  // The same for a scan term, its :n-steps operand read by StepBounds.
  std::int64_t trip_count(ops::TermRef scan) const;

  const CostWeights& weights() const { return w_; }

 private:
  double elements(const ops::TensorType& t) const;
  double bytes(const ops::Type& t) const;
  // Per element of an elementwise op's result: its flops.
  double elementwise_flops(ops::CostClass cost_class) const;
  // The time an op spends computing, memory traffic and calls excluded.
  double compute_ns(ops::OpKind kind, std::span<const ops::Type> operand_types,
                    const ops::Type& result) const;

  CostWeights w_;
};

}  // namespace eqsat::backend
