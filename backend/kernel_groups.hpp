// Internal to the kernels: the entry points of each family of ops, one
// .cpp file per family; kernels.cpp dispatches to them by op group.
#pragma once

#include "kernels.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace eqsat::backend::detail {

using ops::Array;
using ops::Dims;
using ops::TermRef;

// elementwise.cpp: unary ops, cast, binary ops, where (NumPy broadcasting).
void elementwise_shape(TermRef op, Operands in, Dims& shape);
void run_elementwise(TermRef op, Operands in, Array& out);

// A fused elementwise expression (see Function): its ops in evaluation
// order; each source is a leaf (an operand of the fused instruction) or the
// result of an earlier op of the expression. The last op is the result.
struct FusedSource {
  bool leaf = true;
  int index = 0;
};
// A sin and a cos of the same source (sin(x) * cos(x), a rotation) share
// one call of vmath::sincos: the earlier of the two has `partner`, the
// index of the other, whose `by_partner` is set (pair_sin_cos). `reg` is
// the register that holds the op's result (allocate_registers; the last
// op writes the group's result instead).
struct FusedOp {
  ops::OpKind kind;
  int arity = 1;
  std::array<FusedSource, 3> src;
  int partner = -1;
  bool by_partner = false;
  int reg = -1;
};
inline constexpr std::size_t kMaxFusedOps = 16;

// Marks each sin and cos of the same source in `program` as a pair (the
// first unpaired match, in program order).
void pair_sin_cos(std::vector<FusedOp>& program);

// Gives each op of `program` but the last a register, reusing one once
// the last op reading its value has run: a chain of n ops holds two
// registers, not n. A group's registers then stay in the L1 cache (n
// registers of 4 KiB each overflowed its ways from about 8 on).
void allocate_registers(std::vector<FusedOp>& program);

// For a product's epilogue `program` reading the product as leaf
// `product`: an add of an `eligible` leaf and of a sum the product enters
// once, through adds alone, each read once (`add(L, add(b, P))`: an LSTM
// step's input rows, bias and product). The library can add that leaf
// into the product's result (Function::may_accumulate); `rest` is
// the program without that add, its readers reading the sum instead
// (registers allocated again); empty when the add was the whole program.
// The sum is then reassociated: (P + L) + b for L + (b + P).
struct AddedLeaf {
  int leaf = -1;
  std::vector<FusedOp> rest;
};
std::optional<AddedLeaf> without_added_leaf(const std::vector<FusedOp>& program, int product,
                                            const std::function<bool(int)>& eligible);
// Rows shorter than this run op by op (plan_fused): a block's setup would
// cost more per element than the separate kernels.
inline constexpr std::int64_t kShortRow = 64;

// True when `kind` computing `dtype` may join a fused expression: an
// elementwise op whose catalogue fusion column covers `dtype` (FuseF: f32
// and f64, as every unary op but logical_not and cast, add sub mul div pow
// maximum minimum logaddexp hypot; FuseFI: i32 and i64 too, wrapping around as their
// kernels do, as add sub mul maximum minimum neg abs square sign).
bool fusable(ops::OpKind kind, ops::DType dtype);

// True for the comparisons and logical_and / logical_or / logical_not: a
// fused expression computing in dtype T holds their booleans as T(0) and
// T(1) (as `where` reads its condition), so comparisons, logical ops and
// `where` join float, integer and boolean chains.
bool carries_booleans(ops::OpKind kind);

// The dtype a fused group computes `kind` in, given its operands' and
// result's dtypes, or none when the op cannot join a group: its result's
// for elementwise math (operands of that dtype) and `where` (a bool
// condition); its operands' for a comparison or logical op. The compiler
// (Function) and the cost model both read it.
std::optional<ops::DType> fused_compute_dtype(ops::OpKind kind,
                                              std::span<const ops::DType> operands,
                                              ops::DType result);

// True when a reduction may absorb the group computing its operand, reducing
// each row as it is computed: a float sum, mean, prod, max or min over
// trailing contiguous axes (`axes` sorted, of an operand of rank `rank`)
// of an operand of its own dtype.
bool fused_reduction(ops::OpKind kind, std::span<const std::int64_t> axes, std::size_t rank,
                     ops::DType operand, ops::DType result);

// How each leaf of a fused expression meets its result, seen as `rows`
// rows of `row_len` elements: the result's shape (Full), one element
// (Scalar), one element per row (RowConst: a [N, 1] leaf of an [N, C]
// result), or one row repeated (RowRepeat: a [C] bias of an [N, C] result).
enum class LeafKind : std::uint8_t { Full, Scalar, RowConst, RowRepeat };
// A leaf read through a window of its last axis (an absorbed `slice` with
// step 1): the leaf is seen as `width` columns from column `start` of each
// row of `stride` elements; stride 0: the leaf is read whole.
struct LeafWindow {
  std::int64_t start = 0, width = 0, stride = 0;
};
struct FusedLayout {
  std::int64_t rows = 1, row_len = 1;
  std::vector<LeafKind> kinds;      // per leaf
  std::vector<LeafWindow> windows;  // per leaf, or empty: none has one
};

// Plans one pass over the leaves: `shape` is their broadcast shape. False
// when the shapes do not broadcast, the result is empty, or a leaf
// broadcasts in another way, or rows would be shorter than 64 elements
// (then the group runs op by op). `row_len` > 0 asks for rows of that
// length (a fused reduction's reduced length). `windows` (per leaf, or
// empty) gives leaves read through a window: each must then be a Full leaf
// of its window's shape, and rows are the result's last axis.
bool plan_fused(Operands leaves, Dims& shape, FusedLayout& layout, std::int64_t row_len = 0,
                std::span<const LeafWindow> windows = {});

// Evaluates `program` in one pass over memory, a block of elements at a
// time on all threads, into `out` (of the planned shape), computing in
// `compute` (bool, f32, f64, i32 or i64); every leaf has that dtype or is
// bool, and `out` has that dtype or is bool. `out` may share its buffer
// with a Full leaf.
void run_fused(std::span<const FusedOp> program, Operands leaves, const FusedLayout& layout,
               ops::DType compute, Array& out);

// The work of one element of `program` in simple ops (a transcendental
// weighs kTranscendentalOps additions): what a kernel's grain divides.
std::int64_t fused_work(std::span<const FusedOp> program);

// Evaluates `program` for elements [first, first + count) of the result
// (row-major, of the planned shape; `compute` and `out` f32 or f64) on the
// calling thread: the epilogue of
// a matrix product, applied to a block of the product while it is in cache.
void run_fused_range(std::span<const FusedOp> program, Operands leaves, const FusedLayout& layout,
                     ops::DType compute, Array& out, std::int64_t first, std::int64_t count);

// Reduces each row of `program`'s result as it is computed (sum, mean,
// prod, max, min; the order of block_reduce.hpp, so the bits are those of
// the unfused reduction): `out` holds layout.rows values.
void run_fused_reduction(ops::OpKind kind, std::span<const FusedOp> program, Operands leaves,
                         const FusedLayout& layout, Array& out);

// reduce.cpp: sum prod max min mean logsumexp, softmax, log_softmax.
void reduction_shape(TermRef op, Operands in, Dims& shape);
void run_reduction(TermRef op, Operands in, Array& out);
void run_softmax(TermRef op, Operands in, Array& out);

// dot.cpp: numpy.matmul. trans[i]: operand i is given with its last two
// dimensions swapped (the operand of a `transpose` the compiler skipped);
// the kernel reads it through the BLAS / Eigen transpose flag.
// `epilogue`, when given, is called with each run of elements [first,
// first + count) of the result (row-major) right after the product wrote
// them, on the thread that wrote them: a block of rows is one run, a block
// of columns one run per row. Every element is passed exactly once.
// `rows`, when given (a product of two matrices only), splits the
// product by whole rows, never by columns, and calls rows->done(r0, r1)
// for each block of rows [r0, r1) once the block and its epilogue are
// written, on the same thread: the row-aligned groups after the product
// (an LSTM cell) run there too, one hand-off per product instead of one
// per group. `work_per_row` (simple ops, as fused_work counts them) is
// what done() adds to a row, for the grain of an unsplit product's rows.
// `accumulate`: `out` already holds values of its shape, and the product
// is added to them (the libraries' beta of 1) instead of overwriting them.
// `kept_b`, when given, may keep a copy of b for the next calls: b holds
// the same values at every call until its owner forgets the copy (a
// program's constant, a loop's non-sequence; sgemm_rows_avx2.hpp).
class BStrips;
using DotTranspose = std::array<bool, 2>;
using DotEpilogue = std::function<void(std::int64_t first, std::int64_t count)>;
struct DotRows {
  std::function<void(std::int64_t r0, std::int64_t r1)> done;
  std::int64_t work_per_row = 0;
};
void dot_shape(TermRef op, Operands in, Dims& shape, DotTranspose trans = {});
void run_dot(TermRef op, Operands in, Array& out, DotTranspose trans = {},
             const DotEpilogue* epilogue = nullptr, const DotRows* rows = nullptr,
             bool accumulate = false, BStrips* kept_b = nullptr);

// shape_ops.cpp: reshape transpose expand_dims squeeze broadcast_to flip
// concat stack dim.
void shape_op_shape(TermRef op, Operands in, Dims& shape);
void run_shape_op(TermRef op, Operands in, Array& out);

// indexing.cpp: index slice set_index inc_index set_slice inc_slice.
void indexing_shape(TermRef op, Operands in, Dims& shape);
void run_indexing(TermRef op, Operands in, Array& out);

// creation.cpp: zeros ones full zeros_like ones_like arange.
void creation_shape(TermRef op, Operands in, Dims& shape);
void run_creation(TermRef op, Operands in, Array& out);

}  // namespace eqsat::backend::detail
