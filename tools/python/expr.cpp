#include "expr.hpp"

#include "dtype_names.hpp"
#include "errors.hpp"

#include "ops/attrs.hpp"
#include "ops/graph_parser.hpp"
#include "ops/sexpr.hpp"
#include "ops/type_error.hpp"
#include "ops/weak_literal.hpp"

#include <fmt/format.h>

namespace py = pybind11;

namespace eqsat::python {

namespace {

// A Python attribute value written as the graph language writes it.
std::string attr_text(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(v)) return std::to_string(v.cast<std::int64_t>());
  if (py::isinstance<py::float_>(v)) return fmt::format("{}", v.cast<double>());
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) {
    std::string out = "(";
    for (const py::handle& x : v) out += (out.size() > 1 ? " " : "") + attr_text(x);
    return out + ")";
  }
  throw Error("attribute values are numbers, booleans, dtype names or tuples of them, got " +
              py::str(v.get_type()).cast<std::string>());
}

// The value of attribute `key` of an application of `kind`, read by the
// graph parser's reader (dtypes in any spelling dtype_of accepts).
ops::AttrValue attr_value(ops::OpKind kind, const std::string& key_name, ops::AttrKey key,
                          const py::handle& v) {
  const std::string what = fmt::format("{}: {}=", ops::op_name(kind), key_name);
  const std::string text =
      key == ops::AttrKey::Dtype ? std::string(ops::dtype_name(dtype_of(v, what))) : attr_text(v);
  try {
    const std::vector<ops::SExpr> read = ops::read_sexprs(text, "<" + key_name + ">");
    if (read.size() != 1) throw Error(fmt::format("{}{}: cannot read the value", what, text));
    return ops::parse_attr_value(read[0], key);
  } catch (const ops::DiagnosticError& e) {
    throw Error(fmt::format("{}{}: {}", what, text, e.diagnostics().front().message));
  }
}

// "OP of (T1) and (T2): MESSAGE", the op named once however the type rule
// worded its message.
std::string type_error_message(ops::OpKind kind, const std::vector<ops::TermRef>& operands,
                               const std::string& message) {
  const std::string op(ops::op_name(kind));
  std::string_view rest = message;
  if (rest.starts_with(op + ": ")) rest.remove_prefix(op.size() + 2);
  std::string types;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (kind == ops::OpKind::Call && i == 0) continue;  // the body, not an argument
    if (!types.empty()) types += i + 1 == operands.size() ? " and " : ", ";
    types += operands[i]->is_tuple() ? "a tuple" : ops::to_string(operands[i]->type());
  }
  return types.empty() ? fmt::format("{}: {}", op, rest)
                       : fmt::format("{} of {}: {}", op, types, rest);
}

}  // namespace

Expr apply(ops::OpKind kind, const py::args& args, const py::kwargs& kwargs) {
  ops::Attrs attrs;
  for (const auto& [k, v] : kwargs) {
    std::string name = k.cast<std::string>();
    if (v.is_none()) continue;
    const auto key = ops::parse_attr_key(name);
    if (!key) throw Error(fmt::format("{}: unknown attribute '{}'", ops::op_name(kind), name));
    attrs.set(*key, attr_value(kind, name, *key, v));
  }
  std::vector<ops::PendingOperand> pending;
  std::vector<ops::WeakLiteral> literals(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const py::handle a = args[i];
    if (py::isinstance<Expr>(a)) {
      pending.push_back({a.cast<Expr>().term, false});
    } else if (py::isinstance<py::bool_>(a)) {
      pending.push_back({ops::Term::scalar(ops::DType::Bool, a.cast<bool>()), false});
    } else if (py::isinstance<py::int_>(a)) {
      literals[i] = {false, a.cast<std::int64_t>(), 0};
      pending.push_back({nullptr, false});
    } else if (py::isinstance<py::float_>(a)) {
      literals[i] = {true, 0, a.cast<double>()};
      pending.push_back({nullptr, true});
    } else {
      throw Error(fmt::format("{}: operand {} is a {}, not an eqsat expression or a number",
                              ops::op_name(kind), i + 1,
                              py::str(a.get_type()).cast<std::string>()));
    }
  }
  std::vector<ops::TermRef> operands;
  for (std::size_t i = 0; i < pending.size(); ++i)
    operands.push_back(pending[i].term
                           ? pending[i].term
                           : literals[i].to_term(ops::weak_literal_dtype(kind, attrs, pending, i)));
  try {
    return {ops::Term::make(kind, std::move(attrs), operands)};
  } catch (const ops::TypeError& e) {
    throw Error(type_error_message(kind, operands, e.what()));
  }
}

ops::TensorType tensor_type(const py::handle& dtype, const py::handle& shape,
                            const std::string& what) {
  const ops::DType d = dtype_of(dtype, what);
  ops::Dims dims;
  for (const py::handle& x : shape) {
    if (x.is_none()) {
      dims.push_back(ops::kUnknownDim);
    } else {
      const auto n = x.cast<std::int64_t>();
      if (n < 0) throw Error(fmt::format("{}: dimensions are >= 0 or None", what));
      dims.push_back(n);
    }
  }
  return {d, dims};
}

Expr input(const std::string& name, const py::handle& dtype, const py::handle& shape) {
  return {ops::Term::input(name, tensor_type(dtype, shape, "input " + name))};
}

}  // namespace eqsat::python
