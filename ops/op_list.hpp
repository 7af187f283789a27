// The op catalogue, declared once. Each line: enum id, name in graph files,
// group, minimum and maximum number of operands (-1: any), the type rule,
// and the attribute keys the op accepts. Everything else (the OpKind enum,
// name lookup, arity and attribute checks, and the kernel, pullback and cost
// tables of other folders, which must cover every op) derives from it.
#pragma once

// clang-format off
#define EQSAT_OPS(X)                                                                  \
  /* leaves: built by the parser and the optimizer, never written as (op ...) */     \
  X(Input,       "input",       Leaf,      0, 0, leaf_rule,        Name, Type)        \
  X(Nominal,     "nominal",     Leaf,      0, 0, leaf_rule,        Slot, Type)        \
  X(Const,       "const",       Leaf,      0, 0, const_rule,       Value, Path)       \
  /* elementwise, unary */                                                           \
  X(Neg,         "neg",         Unary,     1, 1, same_numeric_rule)                   \
  X(Abs,         "abs",         Unary,     1, 1, same_numeric_rule)                   \
  X(Sign,        "sign",        Unary,     1, 1, same_numeric_rule)                   \
  X(Square,      "square",      Unary,     1, 1, same_numeric_rule)                   \
  X(Exp,         "exp",         Unary,     1, 1, float_unary_rule)                    \
  X(Expm1,       "expm1",       Unary,     1, 1, float_unary_rule)                    \
  X(Log,         "log",         Unary,     1, 1, float_unary_rule)                    \
  X(Log1p,       "log1p",       Unary,     1, 1, float_unary_rule)                    \
  X(Sqrt,        "sqrt",        Unary,     1, 1, float_unary_rule)                    \
  X(Reciprocal,  "reciprocal",  Unary,     1, 1, float_unary_rule)                    \
  X(Sin,         "sin",         Unary,     1, 1, float_unary_rule)                    \
  X(Cos,         "cos",         Unary,     1, 1, float_unary_rule)                    \
  X(Tanh,        "tanh",        Unary,     1, 1, float_unary_rule)                    \
  X(Sigmoid,     "sigmoid",     Unary,     1, 1, float_unary_rule)                    \
  X(Softplus,    "softplus",    Unary,     1, 1, float_unary_rule)                    \
  X(Log1mexp,    "log1mexp",    Unary,     1, 1, float_unary_rule)                    \
  X(Floor,       "floor",       Unary,     1, 1, float_unary_rule)                    \
  X(Ceil,        "ceil",        Unary,     1, 1, float_unary_rule)                    \
  X(LogicalNot,  "logical_not", Unary,     1, 1, bool_unary_rule)                     \
  X(Cast,        "cast",        Unary,     1, 1, cast_rule,        Dtype)             \
  /* elementwise, binary */                                                          \
  X(Add,         "add",         Binary,    2, 2, arith_rule)                          \
  X(Sub,         "sub",         Binary,    2, 2, arith_rule)                          \
  X(Mul,         "mul",         Binary,    2, 2, arith_rule)                          \
  X(Div,         "div",         Binary,    2, 2, div_rule)                            \
  X(Pow,         "pow",         Binary,    2, 2, arith_rule)                          \
  X(Maximum,     "maximum",     Binary,    2, 2, promote_rule)                        \
  X(Minimum,     "minimum",     Binary,    2, 2, promote_rule)                        \
  X(Logaddexp,   "logaddexp",   Binary,    2, 2, div_rule)                            \
  X(Eq,          "eq",          Binary,    2, 2, compare_rule)                        \
  X(Ne,          "ne",          Binary,    2, 2, compare_rule)                        \
  X(Lt,          "lt",          Binary,    2, 2, compare_rule)                        \
  X(Le,          "le",          Binary,    2, 2, compare_rule)                        \
  X(Gt,          "gt",          Binary,    2, 2, compare_rule)                        \
  X(Ge,          "ge",          Binary,    2, 2, compare_rule)                        \
  X(LogicalAnd,  "logical_and", Binary,    2, 2, compare_rule)                        \
  X(LogicalOr,   "logical_or",  Binary,    2, 2, compare_rule)                        \
  X(Where,       "where",       Select,    3, 3, where_rule)                          \
  /* reductions and softmax */                                                       \
  X(Sum,         "sum",         Reduction, 1, 1, sum_rule,         Axis, Keepdims)    \
  X(Prod,        "prod",        Reduction, 1, 1, sum_rule,         Axis, Keepdims)    \
  X(Max,         "max",         Reduction, 1, 1, extremum_rule,    Axis, Keepdims)    \
  X(Min,         "min",         Reduction, 1, 1, extremum_rule,    Axis, Keepdims)    \
  X(Mean,        "mean",        Reduction, 1, 1, float_reduce_rule, Axis, Keepdims)   \
  X(Logsumexp,   "logsumexp",   Reduction, 1, 1, float_reduce_rule, Axis, Keepdims)   \
  X(Softmax,     "softmax",     Softmax,   1, 1, softmax_rule,     Axis)              \
  X(LogSoftmax,  "log_softmax", Softmax,   1, 1, softmax_rule,     Axis)              \
  /* linear algebra */                                                               \
  X(Dot,         "dot",         LinAlg,    2, 2, dot_rule)                            \
  /* shape */                                                                        \
  X(Reshape,     "reshape",     Shape,     1, 1, reshape_rule,     Shape)             \
  X(Transpose,   "transpose",   Shape,     1, 1, transpose_rule,   Perm)              \
  X(ExpandDims,  "expand_dims", Shape,     1, 1, expand_dims_rule, Axis)              \
  X(Squeeze,     "squeeze",     Shape,     1, 1, squeeze_rule,     Axis)              \
  X(BroadcastTo, "broadcast_to", Shape,    1, 1, broadcast_to_rule, Shape)            \
  X(Flip,        "flip",        Shape,     1, 1, flip_rule,        Axis)              \
  X(Concat,      "concat",      Shape,     1, -1, concat_rule,     Axis)              \
  X(Stack,       "stack",       Shape,     1, -1, stack_rule,      Axis)              \
  X(Dim,         "dim",         Shape,     1, 1, dim_rule,         Axis)              \
  /* indexing */                                                                     \
  X(Index,       "index",       Indexing,  2, 2, index_rule)                          \
  X(Slice,       "slice",       Indexing,  1, 1, slice_rule,       Axis, Start, Stop, Step) \
  X(SetIndex,    "set_index",   Indexing,  3, 3, set_index_rule)                      \
  X(IncIndex,    "inc_index",   Indexing,  3, 3, set_index_rule)                      \
  X(SetSlice,    "set_slice",   Indexing,  2, 2, set_slice_rule,   Axis, Start, Stop, Step) \
  X(IncSlice,    "inc_slice",   Indexing,  2, 2, set_slice_rule,   Axis, Start, Stop, Step) \
  /* creation */                                                                     \
  X(Zeros,       "zeros",       Creation,  0, 0, fill_rule,        Shape, Dtype)      \
  X(Ones,        "ones",        Creation,  0, 0, fill_rule,        Shape, Dtype)      \
  X(Full,        "full",        Creation,  1, 1, full_rule,        Shape, Dtype)      \
  X(ZerosLike,   "zeros_like",  Creation,  1, 1, like_rule)                           \
  X(OnesLike,    "ones_like",   Creation,  1, 1, like_rule)                           \
  X(Arange,      "arange",      Creation,  1, 1, arange_rule,      Dtype)             \
  /* control: bodies, loops, calls, tuples */                                        \
  X(Fn,          "fn",          Control,   1, -1, fn_rule,         Params, Inline)    \
  X(Scan,        "scan",        Control,   1, -1, scan_rule,       Scan)              \
  X(Call,        "call",        Control,   1, -1, call_rule)                          \
  X(Get,         "get",         Control,   1, 1, get_rule,         Index)             \
  /* gradient */                                                                     \
  X(Grad,        "grad",        Gradient,  2, 2, grad_rule,        Checkpoint)
// clang-format on
