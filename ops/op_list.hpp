// The op catalogue, declared once: one row per op, its columns the facts
// every other folder reads (through the accessors of op.hpp), so no other
// file lists ops again. Columns:
//   id, name    the OpKind enumerator, the name in graph and rule files
//   group       Leaf, Unary, Binary, Select (where), Reduction, Softmax,
//               LinAlg, Shape, Indexing, Creation, Control, Gradient
//   lo, hi      minimum and maximum number of operands (-1: any)
//   cost        what the cost model charges per element (CostClass):
//               Free, Move (memory only), Flop, Flop4 (div, sqrt,
//               reciprocal), Transc (a transcendental), Transc2 (pow:
//               exp(y·log x)), Select (where), Gemm, Loop (scan),
//               Invoke (call), Never (grad: must be expanded)
//   fusion      whether the executor fuses it into a one-pass group
//               (Fusion): NoFuse, FuseF (f32/f64), FuseFI (f32/f64/i32/i64)
//   grad        Differentiability: Smooth (has a pullback), Zero (no
//               cotangent flows back), Unsupported
//   sign        when the result is known >= 0 (SignRule): AnySign, NonNeg
//               (always), IfFloat (on floats: integers wrap), IfAll / IfAny (operands), IfBranches
//               (where's values), IfFirst (operand 0)
//   flags       OpFlags: Comm (f(a, b) = f(b, a)), Keeps (each result
//               element is an element of operand 0), SameOrder (operand 0's
//               elements in the same row-major order: a reshape), Cmp
//               (compares in the operands' promoted dtype, gives bool),
//               Logic (reads its operands as bool), UnitGrad (the pullback
//               passes the cotangent on times ±1), Linear (linear in all
//               operands together), Bilinear (linear in each operand alone),
//               AxisWise (works slice by slice: a leading axis added to the
//               operands moves its axes one right), Updates (operand 0 with
//               elements written from the last operand), Promotes (not
//               elementwise, but its operands take one dtype)
//   rule        the type rule (type_rules.hpp)
//   attributes  the attribute keys the op accepts
// What cannot be a column stays a table of its folder that must cover
// every op the columns call for (kernels, pullback formulas, scalar
// evaluation): tests/ops/test_op_catalogue.cpp and the coverage tests of
// backend/ and rules/ fail when one does not. ops/README.md lists the steps
// of adding an op.
#pragma once

// clang-format off
#define EQSAT_OPS(X)                                                                                                                                                           \
  /* id          name            group      lo hi  cost    fusion  grad         sign        flags                                  rule               attributes */            \
  /* leaves: built by the parser and the optimizer, never written as (op ...) */                                                                                               \
  X(Input,       "input",        Leaf,      0, 0,  Free,   NoFuse, Zero,        AnySign,    NoFlags,                               leaf_rule,         Name, Type)              \
  X(Nominal,     "nominal",      Leaf,      0, 0,  Free,   NoFuse, Zero,        AnySign,    NoFlags,                               leaf_rule,         Slot, Type)              \
  X(Const,       "const",        Leaf,      0, 0,  Free,   NoFuse, Zero,        AnySign,    NoFlags,                               const_rule,        Value, Path)             \
  /* elementwise, unary */                                                                                                                                                     \
  X(Neg,         "neg",          Unary,     1, 1,  Flop,   FuseFI, Smooth,      AnySign,    UnitGrad | Linear,                     same_numeric_rule)                          \
  X(Abs,         "abs",          Unary,     1, 1,  Flop,   FuseFI, Smooth,      IfFloat,    NoFlags,                               same_numeric_rule)                          \
  X(Sign,        "sign",         Unary,     1, 1,  Flop,   FuseFI, Zero,        AnySign,    NoFlags,                               same_numeric_rule)                          \
  X(Square,      "square",       Unary,     1, 1,  Flop,   FuseFI, Smooth,      IfFloat,    NoFlags,                               same_numeric_rule)                          \
  X(Exp,         "exp",          Unary,     1, 1,  Transc, FuseF,  Smooth,      NonNeg,     NoFlags,                               float_unary_rule)                           \
  X(Expm1,       "expm1",        Unary,     1, 1,  Transc, FuseF,  Smooth,      IfAll,      NoFlags,                               float_unary_rule)                           \
  X(Log,         "log",          Unary,     1, 1,  Transc, FuseF,  Smooth,      AnySign,    NoFlags,                               float_unary_rule)                           \
  X(Log1p,       "log1p",        Unary,     1, 1,  Transc, FuseF,  Smooth,      IfAll,      NoFlags,                               float_unary_rule)                           \
  X(Sqrt,        "sqrt",         Unary,     1, 1,  Flop4,  FuseF,  Smooth,      NonNeg,     NoFlags,                               float_unary_rule)                           \
  X(Reciprocal,  "reciprocal",   Unary,     1, 1,  Flop4,  FuseF,  Smooth,      AnySign,    NoFlags,                               float_unary_rule)                           \
  X(Sin,         "sin",          Unary,     1, 1,  Transc, FuseF,  Smooth,      AnySign,    NoFlags,                               float_unary_rule)                           \
  X(Cos,         "cos",          Unary,     1, 1,  Transc, FuseF,  Smooth,      AnySign,    NoFlags,                               float_unary_rule)                           \
  X(Tanh,        "tanh",         Unary,     1, 1,  Transc, FuseF,  Smooth,      AnySign,    NoFlags,                               float_unary_rule)                           \
  X(Erf,         "erf",          Unary,     1, 1,  Transc, FuseF,  Smooth,      IfAll,      NoFlags,                               float_unary_rule)                           \
  X(Sigmoid,     "sigmoid",      Unary,     1, 1,  Transc, FuseF,  Smooth,      NonNeg,     NoFlags,                               float_unary_rule)                           \
  X(Softplus,    "softplus",     Unary,     1, 1,  Transc, FuseF,  Smooth,      NonNeg,     NoFlags,                               float_unary_rule)                           \
  X(Log1mexp,    "log1mexp",     Unary,     1, 1,  Transc, FuseF,  Smooth,      AnySign,    NoFlags,                               float_unary_rule)                           \
  X(Floor,       "floor",        Unary,     1, 1,  Flop,   FuseF,  Zero,        AnySign,    NoFlags,                               float_unary_rule)                           \
  X(Ceil,        "ceil",         Unary,     1, 1,  Flop,   FuseF,  Zero,        AnySign,    NoFlags,                               float_unary_rule)                           \
  X(LogicalNot,  "logical_not",  Unary,     1, 1,  Flop,   NoFuse, Zero,        AnySign,    Logic,                                 bool_unary_rule)                            \
  X(Cast,        "cast",         Unary,     1, 1,  Flop,   NoFuse, Smooth,      AnySign,    UnitGrad,                              cast_rule,         Dtype)                   \
  /* elementwise, binary */                                                                                                                                                    \
  X(Add,         "add",          Binary,    2, 2,  Flop,   FuseFI, Smooth,      IfAll,      Comm | UnitGrad | Linear,              arith_rule)                                 \
  X(Sub,         "sub",          Binary,    2, 2,  Flop,   FuseFI, Smooth,      AnySign,    UnitGrad | Linear,                     arith_rule)                                 \
  X(Mul,         "mul",          Binary,    2, 2,  Flop,   FuseFI, Smooth,      IfAll,      Comm | Bilinear,                       arith_rule)                                 \
  X(Div,         "div",          Binary,    2, 2,  Flop4,  FuseF,  Smooth,      AnySign,    NoFlags,                               div_rule)                                   \
  X(Pow,         "pow",          Binary,    2, 2,  Transc2, FuseF, Smooth,      AnySign,    NoFlags,                               arith_rule)                                 \
  X(Maximum,     "maximum",      Binary,    2, 2,  Flop,   FuseFI, Smooth,      IfAny,      Comm,                                  promote_rule)                               \
  X(Minimum,     "minimum",      Binary,    2, 2,  Flop,   FuseFI, Smooth,      IfAll,      Comm,                                  promote_rule)                               \
  X(Logaddexp,   "logaddexp",    Binary,    2, 2,  Transc, FuseF,  Smooth,      AnySign,    Comm,                                  div_rule)                                   \
  X(Hypot,       "hypot",        Binary,    2, 2,  Transc, FuseF,  Smooth,      NonNeg,     Comm,                                  div_rule)                                   \
  X(Eq,          "eq",           Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Comm | Cmp,                            compare_rule)                               \
  X(Ne,          "ne",           Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Comm | Cmp,                            compare_rule)                               \
  X(Lt,          "lt",           Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Cmp,                                   compare_rule)                               \
  X(Le,          "le",           Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Cmp,                                   compare_rule)                               \
  X(Gt,          "gt",           Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Cmp,                                   compare_rule)                               \
  X(Ge,          "ge",           Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Cmp,                                   compare_rule)                               \
  X(LogicalAnd,  "logical_and",  Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Comm | Logic,                          compare_rule)                               \
  X(LogicalOr,   "logical_or",   Binary,    2, 2,  Flop,   NoFuse, Zero,        AnySign,    Comm | Logic,                          compare_rule)                               \
  X(Where,       "where",        Select,    3, 3,  Select, NoFuse, Smooth,      IfBranches, NoFlags,                               where_rule)                                 \
  /* reductions and softmax */                                                                                                                                                 \
  X(Sum,         "sum",          Reduction, 1, 1,  Flop,   FuseF,  Smooth,      IfAll,      Linear | AxisWise,                     sum_rule,          Axis, Keepdims)          \
  X(Prod,        "prod",         Reduction, 1, 1,  Flop,   FuseF,  Smooth,      IfAll,      AxisWise,                              sum_rule,          Axis, Keepdims)          \
  X(Max,         "max",          Reduction, 1, 1,  Flop,   FuseF,  Smooth,      IfAll,      AxisWise,                              extremum_rule,     Axis, Keepdims)          \
  X(Min,         "min",          Reduction, 1, 1,  Flop,   FuseF,  Smooth,      IfAll,      AxisWise,                              extremum_rule,     Axis, Keepdims)          \
  X(Mean,        "mean",         Reduction, 1, 1,  Flop,   FuseF,  Smooth,      IfAll,      Linear | AxisWise,                     float_reduce_rule, Axis, Keepdims)          \
  X(Logsumexp,   "logsumexp",    Reduction, 1, 1,  Transc, NoFuse, Smooth,      AnySign,    AxisWise,                              float_reduce_rule, Axis, Keepdims)          \
  X(Softmax,     "softmax",      Softmax,   1, 1,  Transc, NoFuse, Smooth,      NonNeg,     AxisWise,                              softmax_rule,      Axis)                    \
  X(LogSoftmax,  "log_softmax",  Softmax,   1, 1,  Transc, NoFuse, Smooth,      AnySign,    AxisWise,                              softmax_rule,      Axis)                    \
  /* linear algebra */                                                                                                                                                         \
  X(Dot,         "dot",          LinAlg,    2, 2,  Gemm,   NoFuse, Smooth,      IfAll,      Bilinear | Promotes,                   dot_rule)                                   \
  /* shape */                                                                                                                                                                  \
  X(Reshape,     "reshape",      Shape,     1, 1,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | SameOrder | Linear,            reshape_rule,      Shape)                   \
  X(Transpose,   "transpose",    Shape,     1, 1,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | Linear | AxisWise,             transpose_rule,    Perm)                    \
  X(ExpandDims,  "expand_dims",  Shape,     1, 1,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | SameOrder | Linear | AxisWise, expand_dims_rule,  Axis)                    \
  X(Squeeze,     "squeeze",      Shape,     1, 1,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | SameOrder | Linear | AxisWise, squeeze_rule,      Axis)                    \
  X(BroadcastTo, "broadcast_to", Shape,     1, 1,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | Linear,                        broadcast_to_rule, Shape)                   \
  X(BroadcastLike, "broadcast_like", Shape, 2, 2,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | Linear,                        broadcast_like_rule)                        \
  X(Flip,        "flip",         Shape,     1, 1,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | Linear | AxisWise,             flip_rule,         Axis)                    \
  X(Concat,      "concat",       Shape,     1, -1, Move,   NoFuse, Smooth,      IfAll,      Linear | AxisWise | Promotes,          concat_rule,       Axis)                    \
  X(Stack,       "stack",        Shape,     1, -1, Move,   NoFuse, Smooth,      IfAll,      Linear | AxisWise | Promotes,          stack_rule,        Axis)                    \
  X(Dim,         "dim",          Shape,     1, 1,  Move,   NoFuse, Zero,        NonNeg,     NoFlags,                               dim_rule,          Axis)                    \
  /* indexing */                                                                                                                                                               \
  X(Index,       "index",        Indexing,  2, 2,  Move,   NoFuse, Smooth,      IfFirst,    Keeps,                                 index_rule)                                 \
  X(Slice,       "slice",        Indexing,  1, 1,  Move,   NoFuse, Smooth,      IfFirst,    Keeps | Linear | AxisWise,             slice_rule,        Axis, Start, Stop, Step) \
  X(ResizeRows,  "resize_rows",  Indexing,  2, 2,  Move,   NoFuse, Smooth,      AnySign,    NoFlags,                               resize_rows_rule)                           \
  X(SetIndex,    "set_index",    Indexing,  3, 3,  Move,   NoFuse, Smooth,      AnySign,    Updates,                               set_index_rule)                             \
  X(IncIndex,    "inc_index",    Indexing,  3, 3,  Move,   NoFuse, Smooth,      AnySign,    Updates,                               set_index_rule)                             \
  X(SetSlice,    "set_slice",    Indexing,  2, 2,  Move,   NoFuse, Smooth,      AnySign,    Linear | Updates,                      set_slice_rule,    Axis, Start, Stop, Step) \
  X(IncSlice,    "inc_slice",    Indexing,  2, 2,  Move,   NoFuse, Smooth,      AnySign,    Linear | Updates,                      set_slice_rule,    Axis, Start, Stop, Step) \
  /* creation */                                                                                                                                                               \
  X(Zeros,       "zeros",        Creation,  0, 0,  Move,   NoFuse, Zero,        NonNeg,     NoFlags,                               fill_rule,         Shape, Dtype)            \
  X(Ones,        "ones",         Creation,  0, 0,  Move,   NoFuse, Zero,        NonNeg,     NoFlags,                               fill_rule,         Shape, Dtype)            \
  X(Full,        "full",         Creation,  1, 1,  Move,   NoFuse, Smooth,      IfAll,      NoFlags,                               full_rule,         Shape, Dtype)            \
  X(ZerosLike,   "zeros_like",   Creation,  1, 1,  Move,   NoFuse, Zero,        NonNeg,     NoFlags,                               like_rule,         Dtype)                   \
  X(OnesLike,    "ones_like",    Creation,  1, 1,  Move,   NoFuse, Zero,        NonNeg,     NoFlags,                               like_rule,         Dtype)                   \
  X(Arange,      "arange",       Creation,  1, 1,  Move,   NoFuse, Zero,        AnySign,    NoFlags,                               arange_rule,       Dtype)                   \
  /* control: bodies, loops, calls, tuples */                                                                                                                                  \
  X(Fn,          "fn",           Control,   1, -1, Free,   NoFuse, Unsupported, AnySign,    NoFlags,                               fn_rule,           Params, Inline)          \
  X(Scan,        "scan",         Control,   1, -1, Loop,   NoFuse, Unsupported, AnySign,    NoFlags,                               scan_rule,         Scan)                    \
  X(Call,        "call",         Control,   1, -1, Invoke, NoFuse, Unsupported, AnySign,    NoFlags,                               call_rule)                                  \
  X(Get,         "get",          Control,   1, 1,  Free,   NoFuse, Unsupported, AnySign,    NoFlags,                               get_rule,          Index)                   \
  /* gradient */                                                                                                                                                               \
  X(Grad,        "grad",         Gradient,  2, 2,  Never,  NoFuse, Unsupported, AnySign,    NoFlags,                               grad_rule,         Checkpoint)

// The binary op each reduction folds along its axes: (sum x) is
// x0 + x1 + ..., so a loop accumulating h = h + f(x) is a sum of f. Each
// binary op here is commutative and associative in exact arithmetic.
#define EQSAT_FOLDS(X) \
  X(Add, Sum)          \
  X(Mul, Prod)         \
  X(Maximum, Max)      \
  X(Minimum, Min)      \
  X(Logaddexp, Logsumexp)
// clang-format on
