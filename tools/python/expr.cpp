#include "expr.hpp"

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

ops::AttrValue attr_value(const std::string& key_name, ops::AttrKey key, const py::handle& v) {
  const std::string text = attr_text(v);
  const std::vector<ops::SExpr> read = ops::read_sexprs(text, "<" + key_name + ">");
  if (read.size() != 1) throw Error(fmt::format("{}: cannot read the value {}", key_name, text));
  return ops::parse_attr_value(read[0], key);
}

}  // namespace

Expr apply(ops::OpKind kind, const py::args& args, const py::kwargs& kwargs) {
  ops::Attrs attrs;
  for (const auto& [k, v] : kwargs) {
    std::string name = k.cast<std::string>();
    if (v.is_none()) continue;
    const auto key = ops::parse_attr_key(name);
    if (!key) throw Error(fmt::format("{}: unknown attribute '{}'", ops::op_name(kind), name));
    attrs.set(*key, attr_value(name, *key, v));
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
    return {ops::Term::make(kind, std::move(attrs), std::move(operands))};
  } catch (const ops::TypeError& e) {
    throw Error(fmt::format("{}: {}", ops::op_name(kind), e.what()));
  }
}

Expr input(const std::string& name, const std::string& dtype, const py::handle& shape) {
  const auto d = ops::parse_dtype(dtype);
  if (!d) throw Error(fmt::format("input {}: unknown dtype '{}'", name, dtype));
  ops::Dims dims;
  for (const py::handle& x : shape) {
    if (x.is_none()) {
      dims.push_back(ops::kUnknownDim);
    } else {
      const auto n = x.cast<std::int64_t>();
      if (n < 0) throw Error(fmt::format("input {}: dimensions are >= 0 or None", name));
      dims.push_back(n);
    }
  }
  return {ops::Term::input(name, {*d, dims})};
}

}  // namespace eqsat::python
