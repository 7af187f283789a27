#include "type_rules.hpp"

#include "type_rule_support.hpp"

#include "slice.hpp"
#include "term.hpp"
#include "type_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace eqsat::ops::type_rules {

namespace detail {

std::string_view name_of(OpKind kind) {
  return op_name(kind);
}

const TensorType& tensor(OpKind kind, std::span<const TermRef> xs, std::size_t i) {
  if (xs[i]->is_tuple())
    throw TypeError(fmt::format("{}: operand {} is a tuple; select an element with (get I ...)",
                                name_of(kind), i + 1))
        .about_operand(static_cast<int>(i));
  return xs[i]->tensor_type();
}

void require_integer_scalar(OpKind kind, std::span<const TermRef> xs, std::size_t i,
                            const char* what) {
  const TensorType& t = tensor(kind, xs, i);
  if (!t.is_scalar() || !is_integer(t.dtype))
    throw TypeError(
        fmt::format("{}: {} must be an integer scalar, got {}", name_of(kind), what, to_string(t)))
        .about_operand(static_cast<int>(i));
}

void require_float(OpKind kind, const TensorType& t, const char* what) {
  if (!is_float(t.dtype))
    throw TypeError(
        fmt::format("{}: {} must be a float tensor, got {}", name_of(kind), what, to_string(t)));
}

std::optional<std::int64_t> const_int(TermRef t) {
  const Array* a = t->const_value();
  if (!a || a->rank() != 0) return std::nullopt;
  return a->integer_element(0);
}

std::int64_t int_attr(OpKind kind, const Attrs& attrs, AttrKey key) {
  const AttrValue* v = attrs.find(key);
  if (auto* i = std::get_if<std::int64_t>(v)) return *i;
  throw TypeError(fmt::format("{}: :{} must be an integer", name_of(kind), attr_key_name(key)))
      .about_attr(key);
}

bool bool_attr(OpKind kind, const Attrs& attrs, AttrKey key, bool fallback) {
  const AttrValue* v = attrs.find(key);
  if (!v) return fallback;
  if (auto* b = std::get_if<bool>(v)) return *b;
  throw TypeError(fmt::format("{}: :{} must be true or false", name_of(kind), attr_key_name(key)))
      .about_attr(key);
}

TensorType drop_leading(const TensorType& t) {
  return {t.dtype, Dims(t.dims.begin() + 1, t.dims.end())};
}

}  // namespace detail

namespace {

using namespace detail;

// Broadcast shape of every operand.
Dims broadcast_all(OpKind kind, std::span<const TermRef> xs) {
  Dims out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    try {
      out = broadcast_dims(out, tensor(kind, xs, i).dims);
    } catch (const TypeError& e) {
      throw TypeError(fmt::format("{}: {}", name_of(kind), e.what()))
          .about_operand(static_cast<int>(i));
    }
  }
  return out;
}

DType promoted(OpKind kind, std::span<const TermRef> xs) {
  DType d = tensor(kind, xs, 0).dtype;
  for (std::size_t i = 1; i < xs.size(); ++i) d = promote(d, tensor(kind, xs, i).dtype);
  return d;
}

DType dtype_attr(OpKind kind, const Attrs& attrs, DType fallback) {
  const AttrValue* v = attrs.find(AttrKey::Dtype);
  if (!v) return fallback;
  if (auto* d = std::get_if<DType>(v)) return *d;
  throw TypeError(fmt::format("{}: :dtype must be one of bool i32 i64 f32 f64", name_of(kind)))
      .about_attr(AttrKey::Dtype);
}

// normalize_axis for the attribute `key`, blaming it on failure.
int attr_axis(OpKind kind, AttrKey key, std::int64_t axis, int rank) {
  try {
    return normalize_axis(axis, rank, std::string(name_of(kind)).c_str());
  } catch (TypeError& e) {
    throw e.about_attr(key);
  }
}

const IntList& int_list_attr(OpKind kind, const Attrs& attrs, AttrKey key) {
  const AttrValue* v = attrs.find(key);
  if (auto* l = std::get_if<IntList>(v)) return *l;
  throw TypeError(
      fmt::format("{}: :{} must be a list of integers", name_of(kind), attr_key_name(key)))
      .about_attr(key);
}

// Reads an axis attribute given as an integer or a list; absent: `fallback`.
IntList axes_attr(OpKind kind, const Attrs& attrs, IntList fallback) {
  const AttrValue* v = attrs.find(AttrKey::Axis);
  if (!v) return fallback;
  if (auto* i = std::get_if<std::int64_t>(v)) return {*i};
  return int_list_attr(kind, attrs, AttrKey::Axis);
}

// Normalized, sorted, duplicate-free axes of a rank-`rank` tensor, given by
// the attribute `key`.
IntList normalize_axes(OpKind kind, IntList axes, int rank, AttrKey key = AttrKey::Axis) {
  for (auto& a : axes) a = attr_axis(kind, key, a, rank);
  std::ranges::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw TypeError(fmt::format("{}: repeated axis", name_of(kind))).about_attr(key);
  return axes;
}

IntList all_axes(int rank) {
  IntList a(rank);
  std::iota(a.begin(), a.end(), 0);
  return a;
}

TensorType elementwise(OpKind kind, std::span<const TermRef> xs, DType dtype) {
  return {dtype, broadcast_all(kind, xs)};
}

Dims reduce_dims(const Dims& dims, const IntList& axes, bool keepdims) {
  Dims out;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
    if (std::ranges::binary_search(axes, i)) {
      if (keepdims) out.push_back(1);
    } else {
      out.push_back(dims[i]);
    }
  }
  return out;
}

TensorType reduction(OpKind kind, Attrs& attrs, std::span<const TermRef> xs, DType dtype) {
  const TensorType& x = tensor(kind, xs, 0);
  IntList axes = normalize_axes(kind, axes_attr(kind, attrs, all_axes(x.rank())), x.rank());
  const bool keepdims = bool_attr(kind, attrs, AttrKey::Keepdims, false);
  attrs.set(AttrKey::Axis, axes).set(AttrKey::Keepdims, keepdims);
  return {dtype, reduce_dims(x.dims, axes, keepdims)};
}

SliceBounds slice_bounds(OpKind kind, const Attrs& attrs) {
  SliceBounds b;
  if (attrs.has(AttrKey::Start)) b.start = int_attr(kind, attrs, AttrKey::Start);
  if (attrs.has(AttrKey::Stop)) b.stop = int_attr(kind, attrs, AttrKey::Stop);
  if (attrs.has(AttrKey::Step)) b.step = int_attr(kind, attrs, AttrKey::Step);
  if (b.step == 0)
    throw TypeError(fmt::format("{}: :step must not be 0", name_of(kind)))
        .about_attr(AttrKey::Step);
  return b;
}

// Type of x[start:stop:step] along the (normalized, stored) :axis.
TensorType sliced(OpKind kind, Attrs& attrs, const TensorType& x) {
  if (x.rank() == 0) throw TypeError(fmt::format("{}: cannot slice a scalar", name_of(kind)));
  const int axis =
      attr_axis(kind, AttrKey::Axis,
                attrs.has(AttrKey::Axis) ? int_attr(kind, attrs, AttrKey::Axis) : 0, x.rank());
  attrs.set(AttrKey::Axis, std::int64_t{axis});
  const SliceBounds b = slice_bounds(kind, attrs);
  TensorType out = x;
  if (x.dims[axis] != kUnknownDim) out.dims[axis] = resolve_slice(b, x.dims[axis]).length;
  return out;
}

void require_assignable(OpKind kind, const TensorType& target, const TensorType& value) {
  Dims b;
  try {
    b = broadcast_dims(value.dims, target.dims);
  } catch (const TypeError&) {
    b.clear();  // reported below, in the op's own words
  }
  if (b.size() != target.dims.size() || !compatible({DType::F64, b}, {DType::F64, target.dims}))
    throw TypeError(fmt::format("{}: value of shape {} does not fit a target of shape {}",
                                name_of(kind), dims_to_string(value.dims),
                                dims_to_string(target.dims)));
}

const IntList& shape_attr(OpKind kind, const Attrs& attrs) {
  if (!attrs.has(AttrKey::Shape))
    throw TypeError(fmt::format("{}: :shape is required", name_of(kind)));
  return int_list_attr(kind, attrs, AttrKey::Shape);
}

void require_known_shape(OpKind kind, const IntList& shape) {
  for (auto d : shape)
    if (d < 0)
      throw TypeError(fmt::format("{}: :shape entries must be >= 0", name_of(kind)))
          .about_attr(AttrKey::Shape);
}

}  // namespace

Type leaf_rule(OpKind kind, Attrs& attrs, std::span<const TermRef>) {
  const AttrValue* type = attrs.find(AttrKey::Type);
  if (!type || !std::holds_alternative<TensorType>(*type))
    throw TypeError(fmt::format("{}: needs a tensor type", name_of(kind)));
  const AttrValue* name = attrs.find(AttrKey::Name);
  if (kind == OpKind::Input && (!name || !std::holds_alternative<std::string>(*name)))
    throw TypeError("input: needs a name");
  if (kind == OpKind::Nominal && int_attr(kind, attrs, AttrKey::Slot) < 0)
    throw TypeError("nominal: slot must be >= 0");
  return std::get<TensorType>(*type);
}

Type const_rule(OpKind, Attrs& attrs, std::span<const TermRef>) {
  const AttrValue* v = attrs.find(AttrKey::Value);
  if (!v || !std::holds_alternative<Array>(*v)) throw TypeError("const: needs a value");
  return std::get<Array>(*v).type();
}

Type same_numeric_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  if (x.dtype == DType::Bool)
    throw TypeError(fmt::format("{}: operand is bool; cast it to a number first", name_of(kind)));
  return x;
}

Type float_unary_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  return TensorType{float_result(x.dtype), x.dims};
}

Type bool_unary_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  return TensorType{DType::Bool, tensor(kind, xs, 0).dims};
}

Type cast_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const AttrValue* d = attrs.find(AttrKey::Dtype);
  if (!d || !std::holds_alternative<DType>(*d)) throw TypeError("cast: :dtype is required");
  return TensorType{std::get<DType>(*d), tensor(kind, xs, 0).dims};
}

Type arith_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  const DType d = promoted(kind, xs);
  if (d == DType::Bool)
    throw TypeError(
        fmt::format("{}: both operands are bool; cast one to a number first", name_of(kind)));
  return elementwise(kind, xs, d);
}

Type div_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  return elementwise(kind, xs, float_result(promoted(kind, xs)));
}

Type promote_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  return elementwise(kind, xs, promoted(kind, xs));
}

Type compare_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  return elementwise(kind, xs, DType::Bool);
}

Type where_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  if (tensor(kind, xs, 0).dtype != DType::Bool)
    throw TypeError(
        fmt::format("where: condition must be bool, got {}", to_string(tensor(kind, xs, 0))))
        .about_operand(0);
  return elementwise(kind, xs, promote(tensor(kind, xs, 1).dtype, tensor(kind, xs, 2).dtype));
}

Type sum_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const DType d = tensor(kind, xs, 0).dtype;
  return reduction(kind, attrs, xs, is_float(d) ? d : DType::I64);
}

Type extremum_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  return reduction(kind, attrs, xs, tensor(kind, xs, 0).dtype);
}

Type float_reduce_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  return reduction(kind, attrs, xs, float_result(tensor(kind, xs, 0).dtype));
}

Type softmax_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  if (x.rank() == 0) throw TypeError(fmt::format("{}: operand must have rank >= 1", name_of(kind)));
  const std::int64_t axis = attrs.has(AttrKey::Axis) ? int_attr(kind, attrs, AttrKey::Axis) : -1;
  attrs.set(AttrKey::Axis, std::int64_t{attr_axis(kind, AttrKey::Axis, axis, x.rank())});
  return TensorType{float_result(x.dtype), x.dims};
}

Type dot_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  const TensorType& a = tensor(kind, xs, 0);
  const TensorType& b = tensor(kind, xs, 1);
  if (a.rank() == 0 || b.rank() == 0) throw TypeError("dot: operands must have rank >= 1");
  const DType d = promote(a.dtype, b.dtype);
  if (d == DType::Bool) throw TypeError("dot: operands are bool; cast them to a number first");
  // numpy.matmul: a 1-D operand is a row (left) or a column (right) vector.
  const Dims ad = a.rank() == 1 ? Dims{1, a.dims[0]} : a.dims;
  const Dims bd = b.rank() == 1 ? Dims{b.dims[0], 1} : b.dims;
  const std::int64_t k1 = ad[ad.size() - 1], k2 = bd[bd.size() - 2];
  if (k1 != kUnknownDim && k2 != kUnknownDim && k1 != k2)
    throw TypeError(fmt::format("dot: inner dimensions differ: {} and {} for shapes {} and {}", k1,
                                k2, dims_to_string(a.dims), dims_to_string(b.dims)));
  Dims batch;
  try {
    batch = broadcast_dims(Dims(ad.begin(), ad.end() - 2), Dims(bd.begin(), bd.end() - 2));
  } catch (const TypeError& e) {
    throw TypeError(fmt::format("dot: batch {}", e.what()));
  }
  if (a.rank() > 1) batch.push_back(ad[ad.size() - 2]);
  if (b.rank() > 1) batch.push_back(bd[bd.size() - 1]);
  return TensorType{d, batch};
}

Type reshape_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  Dims shape = shape_attr(kind, attrs);
  int inferred = -1;
  std::int64_t known = 1;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        throw TypeError("reshape: at most one -1 in :shape").about_attr(AttrKey::Shape);
      inferred = i;
    } else if (shape[i] < 0) {
      throw TypeError("reshape: :shape entries must be >= 0 or -1").about_attr(AttrKey::Shape);
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      throw TypeError(fmt::format("reshape: :shape ({}) has too many elements for 64 bits",
                                  fmt::join(shape, " ")))
          .about_attr(AttrKey::Shape);
    }
  }
  const std::int64_t n = x.num_elements();
  if (n != kUnknownDim) {
    if (inferred >= 0) {
      if (known == 0 || n % known != 0)
        throw TypeError(
            fmt::format("reshape: cannot reshape {} elements into ({})", n, fmt::join(shape, " ")))
            .about_attr(AttrKey::Shape);
      shape[inferred] = n / known;
    } else if (known != n) {
      throw TypeError(
          fmt::format("reshape: cannot reshape {} elements into ({})", n, fmt::join(shape, " ")))
          .about_attr(AttrKey::Shape);
    }
  } else if (inferred >= 0) {
    shape[inferred] = kUnknownDim;
  }
  return TensorType{x.dtype, shape};
}

Type transpose_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  IntList perm =
      attrs.has(AttrKey::Perm) ? int_list_attr(kind, attrs, AttrKey::Perm) : IntList(x.dims.size());
  if (!attrs.has(AttrKey::Perm)) std::iota(perm.rbegin(), perm.rend(), 0);
  IntList sorted = normalize_axes(kind, perm, x.rank(), AttrKey::Perm);
  if (static_cast<int>(perm.size()) != x.rank() || sorted != all_axes(x.rank()))
    throw TypeError(fmt::format("transpose: :perm ({}) is not a permutation of {} axes",
                                fmt::join(perm, " "), x.rank()))
        .about_attr(AttrKey::Perm);
  for (auto& p : perm) p = attr_axis(kind, AttrKey::Perm, p, x.rank());
  attrs.set(AttrKey::Perm, perm);
  TensorType out{x.dtype, {}};
  for (auto p : perm) out.dims.push_back(x.dims[p]);
  return out;
}

Type expand_dims_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  if (!attrs.has(AttrKey::Axis)) throw TypeError("expand_dims: :axis is required");
  const int axis =
      attr_axis(kind, AttrKey::Axis, int_attr(kind, attrs, AttrKey::Axis), x.rank() + 1);
  attrs.set(AttrKey::Axis, std::int64_t{axis});
  TensorType out = x;
  out.dims.insert(out.dims.begin() + axis, 1);
  return out;
}

Type squeeze_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  IntList unit;
  for (int i = 0; i < x.rank(); ++i)
    if (x.dims[i] == 1) unit.push_back(i);
  const IntList axes = normalize_axes(kind, axes_attr(kind, attrs, unit), x.rank());
  for (auto a : axes)
    if (x.dims[a] != 1 && x.dims[a] != kUnknownDim)
      throw TypeError(fmt::format("squeeze: axis {} has length {}, not 1", a, x.dims[a]))
          .about_attr(AttrKey::Axis);
  attrs.set(AttrKey::Axis, axes);
  return TensorType{x.dtype, reduce_dims(x.dims, axes, false)};
}

Type broadcast_to_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  const IntList shape = shape_attr(kind, attrs);  // a copy: attrs.set below may move it
  require_known_shape(kind, shape);
  require_assignable(kind, {x.dtype, shape}, x);
  return TensorType{x.dtype, shape};
}

// broadcast_like: x's dtype, at the broadcast shape of x and y (a static
// mismatch is a type error, an unknown length is checked at run time).
Type broadcast_like_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  return TensorType{tensor(kind, xs, 0).dtype, broadcast_all(kind, xs)};
}

Type flip_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  attrs.set(AttrKey::Axis,
            normalize_axes(kind, axes_attr(kind, attrs, all_axes(x.rank())), x.rank()));
  return x;
}

Type concat_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& first = tensor(kind, xs, 0);
  if (first.rank() == 0) throw TypeError("concat: operands must have rank >= 1");
  const int axis =
      attr_axis(kind, AttrKey::Axis,
                attrs.has(AttrKey::Axis) ? int_attr(kind, attrs, AttrKey::Axis) : 0, first.rank());
  attrs.set(AttrKey::Axis, std::int64_t{axis});
  TensorType out{promoted(kind, xs), first.dims};
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const TensorType& t = tensor(kind, xs, i);
    TensorType a = t, b = first;
    if (t.rank() != first.rank())
      throw TypeError(
          fmt::format("concat: operand {} has rank {}, expected {}", i + 1, t.rank(), first.rank()))
          .about_operand(static_cast<int>(i));
    a.dims[axis] = b.dims[axis] = kUnknownDim;
    a.dtype = b.dtype;
    if (!compatible(a, b))
      throw TypeError(fmt::format("concat: shapes {} and {} differ off axis {}",
                                  dims_to_string(first.dims), dims_to_string(t.dims), axis))
          .about_operand(static_cast<int>(i));
    const std::int64_t d = t.dims[axis];
    if (out.dims[axis] == kUnknownDim || d == kUnknownDim)
      out.dims[axis] = kUnknownDim;
    else if (__builtin_add_overflow(out.dims[axis], d, &out.dims[axis]))
      throw TypeError("concat: the result's length overflows 64 bits")
          .about_operand(static_cast<int>(i));
    for (int k = 0; k < t.rank(); ++k)
      if (k != axis && out.dims[k] == kUnknownDim) out.dims[k] = t.dims[k];
  }
  return out;
}

Type stack_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  TensorType shape = tensor(kind, xs, 0);
  for (std::size_t i = 1; i < xs.size(); ++i) {
    TensorType t = tensor(kind, xs, i);
    t.dtype = shape.dtype;
    if (!compatible(t, shape))
      throw TypeError(fmt::format("stack: operand {} has shape {}, expected {}", i + 1,
                                  dims_to_string(t.dims), dims_to_string(shape.dims)))
          .about_operand(static_cast<int>(i));
    for (int k = 0; k < t.rank(); ++k)
      if (shape.dims[k] == kUnknownDim) shape.dims[k] = t.dims[k];
  }
  const int axis = attr_axis(kind, AttrKey::Axis,
                             attrs.has(AttrKey::Axis) ? int_attr(kind, attrs, AttrKey::Axis) : 0,
                             shape.rank() + 1);
  attrs.set(AttrKey::Axis, std::int64_t{axis});
  shape.dtype = promoted(kind, xs);
  shape.dims.insert(shape.dims.begin() + axis, static_cast<std::int64_t>(xs.size()));
  return shape;
}

Type dim_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  if (x.rank() == 0) throw TypeError("dim: operand must have rank >= 1");
  const int axis =
      attr_axis(kind, AttrKey::Axis,
                attrs.has(AttrKey::Axis) ? int_attr(kind, attrs, AttrKey::Axis) : 0, x.rank());
  attrs.set(AttrKey::Axis, std::int64_t{axis});
  return TensorType{DType::I64, {}};
}

Type index_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  if (x.rank() == 0) throw TypeError("index: cannot index a scalar");
  require_integer_scalar(kind, xs, 1, "the index");
  return drop_leading(x);
}

// x with n rows: the leading dimension is n when n is a constant.
Type resize_rows_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  TensorType x = tensor(kind, xs, 0);
  if (x.rank() == 0) throw TypeError("resize_rows: cannot resize a scalar");
  require_integer_scalar(kind, xs, 1, "the number of rows");
  const auto n = const_int(xs[1]);
  if (n && *n < 0) throw TypeError("resize_rows: the number of rows must be >= 0").about_operand(1);
  x.dims[0] = n.value_or(kUnknownDim);
  return x;
}

Type slice_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  return sliced(kind, attrs, tensor(kind, xs, 0));
}

Type set_index_rule(OpKind kind, Attrs&, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  if (x.rank() == 0) throw TypeError(fmt::format("{}: cannot index a scalar", name_of(kind)));
  require_integer_scalar(kind, xs, 1, "the index");
  try {
    require_assignable(kind, drop_leading(x), tensor(kind, xs, 2));
  } catch (TypeError& e) {
    throw e.about_operand(2);
  }
  return x;
}

Type set_slice_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& x = tensor(kind, xs, 0);
  const TensorType target = sliced(kind, attrs, x);
  try {
    require_assignable(kind, target, tensor(kind, xs, 1));
  } catch (TypeError& e) {
    throw e.about_operand(1);
  }
  return x;
}

Type fill_rule(OpKind kind, Attrs& attrs, std::span<const TermRef>) {
  const IntList shape = shape_attr(kind, attrs);  // a copy: attrs.set below may move it
  require_known_shape(kind, shape);
  const DType d = dtype_attr(kind, attrs, DType::F64);
  attrs.set(AttrKey::Dtype, d);
  return TensorType{d, shape};
}

Type full_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  const TensorType& v = tensor(kind, xs, 0);
  if (!v.is_scalar()) throw TypeError("full: the fill value must be a scalar").about_operand(0);
  const IntList shape = shape_attr(kind, attrs);  // a copy: attrs.set below may move it
  require_known_shape(kind, shape);
  const DType d = dtype_attr(kind, attrs, v.dtype);
  attrs.set(AttrKey::Dtype, d);
  return TensorType{d, shape};
}

// zeros_like, ones_like: the operand's shape, and :dtype when given (else
// the operand's dtype). A :dtype equal to the operand's is dropped, so one
// value has one term.
Type like_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  TensorType t = tensor(kind, xs, 0);
  const DType d = dtype_attr(kind, attrs, t.dtype);
  if (d == t.dtype) attrs.erase(AttrKey::Dtype);
  t.dtype = d;
  return t;
}

Type arange_rule(OpKind kind, Attrs& attrs, std::span<const TermRef> xs) {
  require_integer_scalar(kind, xs, 0, "the length");
  const DType d = dtype_attr(kind, attrs, DType::I64);
  attrs.set(AttrKey::Dtype, d);
  const auto n = const_int(xs[0]);
  if (n && *n < 0) throw TypeError("arange: length must be >= 0").about_operand(0);
  return TensorType{d, {n.value_or(kUnknownDim)}};
}

}  // namespace eqsat::ops::type_rules
