#include "bodies.hpp"

#include "errors.hpp"

#include "ops/post_order.hpp"
#include "ops/type_error.hpp"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <unordered_map>
#include <unordered_set>

namespace py = pybind11;

namespace eqsat::python {

namespace {

// The name of a graph input `t` reads, or nullptr.
const std::string* input_read_by(ops::TermRef t) {
  const std::string* found = nullptr;
  ops::for_each_post_order(
      t, ops::Bodies::Skip,
      [&](ops::TermRef u) {
        if (!found && u->kind() == ops::OpKind::Input)
          found = &u->attrs().get<std::string>(ops::AttrKey::Name);
      },
      [](ops::TermRef u) { return u->uses_input(); });
  return found;
}

// A Python number as a scalar of `dtype`; an expression as its term.
ops::TermRef term_of(const py::handle& v, ops::DType dtype, const std::string& what) {
  if (py::isinstance<Expr>(v)) return v.cast<Expr>().term;
  if (py::isinstance<py::bool_>(v)) return ops::Term::scalar(ops::DType::Bool, v.cast<bool>());
  if (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v))
    return ops::Term::scalar(dtype, v.cast<double>());
  throw Error(fmt::format("{}: expected an eqsat expression or a number, got {}", what,
                          py::str(v.get_type()).cast<std::string>()));
}

// A type error of the op `what` built here, the op named once.
Error type_error(const std::string& what, const ops::TypeError& e) {
  std::string_view message = e.what();
  const std::string op = what.substr(0, what.find(' '));
  if (message.starts_with(op + ": ")) message.remove_prefix(op.size() + 2);
  return Error(fmt::format("{}: {}", what, message));
}

// The body's outputs, checked to be closed tensor expressions.
std::vector<ops::TermRef> body_outputs(const py::list& returned,
                                       const std::vector<ops::DType>& number_dtypes,
                                       const std::string& what) {
  std::vector<ops::TermRef> outputs;
  for (std::size_t i = 0; i < returned.size(); ++i) {
    const ops::DType dtype = i < number_dtypes.size()                ? number_dtypes[i]
                             : py::isinstance<py::int_>(returned[i]) ? ops::DType::I64
                                                                     : ops::DType::F64;
    const ops::TermRef t = term_of(returned[i], dtype, fmt::format("{}: output {}", what, i + 1));
    if (t->is_tuple())
      throw Error(
          fmt::format("{}: output {} is a tuple; return its elements (eqsat.get)", what, i + 1));
    if (const std::string* name = input_read_by(t))
      throw Error(
          fmt::format("{}: the body reads the graph input '{}'; bodies are closed: pass "
                      "it in (scan: non_sequences; function: a parameter)",
                      what, *name));
    outputs.push_back(t);
  }
  if (outputs.empty()) throw Error(what + ": the body returns no output");
  return outputs;
}

ops::TermRef make_fn(const std::vector<ops::TensorType>& params, std::vector<ops::TermRef> outputs,
                     bool inline_calls, const std::string& what) {
  ops::Attrs attrs;
  attrs.set(ops::AttrKey::Params, params);
  if (!inline_calls) attrs.set(ops::AttrKey::Inline, false);
  try {
    return ops::Term::make(ops::OpKind::Fn, std::move(attrs), std::move(outputs));
  } catch (const ops::TypeError& e) {
    throw type_error(what, e);
  }
}

// The names of the defs built from Python, by `fn` term, unique.
struct DefNames {
  std::unordered_map<ops::TermRef, std::string> by_fn;
  std::unordered_set<std::string> used;
};
DefNames& def_names() {
  static DefNames names;
  return names;
}

}  // namespace

Parameters parameters(const std::vector<ops::TensorType>& types) {
  // Each body under construction gets its own range of slots, far above
  // any a finished body uses (0, 1, ...).
  static std::int64_t next_base = std::int64_t{1} << 40;
  constexpr std::int64_t kRange = std::int64_t{1} << 20;
  if (types.size() >= static_cast<std::size_t>(kRange))
    throw Error(fmt::format("a body of {} parameters is too large", types.size()));
  Parameters p{next_base, {}};
  next_base += kRange;
  for (std::size_t k = 0; k < types.size(); ++k)
    p.values.push_back({ops::Term::nominal(p.base + static_cast<std::int64_t>(k), types[k])});
  return p;
}

Expr body(const Parameters& params, const py::list& outputs,
          const std::vector<ops::DType>& number_dtypes, const std::string& what, bool inline_calls,
          const std::string& def_name) {
  std::vector<ops::TensorType> types;
  for (const Expr& p : params.values) types.push_back(p.term->tensor_type());
  std::vector<ops::TermRef> written = body_outputs(outputs, number_dtypes, what);
  const std::int64_t end = params.base + static_cast<std::int64_t>(types.size());
  for (ops::TermRef t : written)
    for (std::int64_t slot : t->free_nominals())
      if (slot < params.base || slot >= end)
        throw Error(
            fmt::format("{}: the body reads a parameter of an enclosing body (a scan "
                        "step's or a function's argument); pass it in (scan: "
                        "non_sequences; function: a parameter)",
                        what));
  // The parameters' slots become 0, 1, ...: rebuilt bottom-up, bodies inside
  // (closed, finished) left as they are.
  std::unordered_map<ops::TermRef, ops::TermRef> renumbered;
  auto renumber = [&](ops::TermRef t) {
    ops::TermRef out = t;
    if (t->kind() == ops::OpKind::Nominal) {
      out = ops::Term::nominal(t->attrs().get<std::int64_t>(ops::AttrKey::Slot) - params.base,
                               t->tensor_type());
    } else if (t->kind() != ops::OpKind::Fn && !t->free_nominals().empty()) {
      std::vector<ops::TermRef> operands;
      for (ops::TermRef o : t->operands()) operands.push_back(renumbered.at(o));
      out = ops::Term::make(t->kind(), t->attrs(), std::move(operands));
    }
    renumbered.emplace(t, out);
  };
  ops::for_each_post_order(written, ops::Bodies::Skip, renumber, [&](ops::TermRef t) {
    return !renumbered.contains(t) && !t->free_nominals().empty();
  });
  std::vector<ops::TermRef> outs;
  for (ops::TermRef t : written) {
    const auto it = renumbered.find(t);
    outs.push_back(it == renumbered.end() ? t : it->second);
  }
  const ops::TermRef fn = make_fn(types, std::move(outs), inline_calls, what);
  DefNames& names = def_names();
  if (!def_name.empty() && !names.by_fn.contains(fn)) {
    std::string unique = def_name;
    for (int k = 2; names.used.contains(unique); ++k) unique = fmt::format("{}_{}", def_name, k);
    names.used.insert(unique);
    names.by_fn.emplace(fn, unique);
  }
  return {fn};
}

Expr scan(const Expr& fn, const py::list& sequences, const py::list& mitsots,
          const py::list& sitsots, const py::list& nonsequences, const py::object& n_steps,
          std::int64_t num_nitsot, bool until) {
  ops::ScanSpec spec;
  std::vector<ops::TermRef> operands{fn.term};
  auto tensor_of = [](const py::handle& v, const std::string& what) {
    const ops::TermRef t = term_of(v, ops::DType::F64, what);
    if (t->is_tuple()) throw Error(what + ": is a tuple (use eqsat.get)");
    return t;
  };
  if (!n_steps.is_none()) {
    spec.has_n_steps = true;
    operands.push_back(term_of(n_steps, ops::DType::I64, "scan: n_steps"));
  }
  for (const py::handle& entry : sequences) {
    const auto pair = entry.cast<py::tuple>();
    const ops::TermRef seq = tensor_of(pair[0], "scan: a sequence");
    if (seq->tensor_type().rank() == 0)
      throw Error(
          fmt::format("scan: a sequence must have rank >= 1, got {}", ops::to_string(seq->type())));
    spec.sequence_taps.push_back(pair[1].cast<ops::IntList>());
    operands.push_back(seq);
  }
  for (const py::handle& entry : mitsots) {
    const auto pair = entry.cast<py::tuple>();
    const ops::TermRef init = tensor_of(pair[0], "scan: an initial history");
    if (init->tensor_type().rank() == 0)
      throw Error(
          fmt::format("scan: the initial history of a state with taps {} must have rank "
                      ">= 1 (one row per step before the first), got {}",
                      py::str(pair[1]).cast<std::string>(), ops::to_string(init->type())));
    spec.mitsot_taps.push_back(pair[1].cast<ops::IntList>());
    operands.push_back(init);
  }
  for (const py::handle& v : sitsots) {
    operands.push_back(tensor_of(v, "scan: an initial state"));
  }
  for (const py::handle& v : nonsequences) {
    operands.push_back(tensor_of(v, "scan: a non-sequence"));
  }
  spec.num_sitsot = static_cast<std::int64_t>(sitsots.size());
  spec.num_nitsot = num_nitsot;
  spec.num_nonsequences = static_cast<std::int64_t>(nonsequences.size());
  spec.until = until;
  ops::Attrs attrs;
  attrs.set(ops::AttrKey::Scan, spec);
  try {
    return {ops::Term::make(ops::OpKind::Scan, std::move(attrs), std::move(operands))};
  } catch (const ops::TypeError& e) {
    throw type_error("scan", e);
  }
}

void add_called_defs(ops::Graph& g) {
  std::vector<ops::TermRef> roots;
  for (const auto& o : g.outputs) roots.push_back(o.term);
  const DefNames& names = def_names();
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](ops::TermRef t) {
    if (t->kind() != ops::OpKind::Call) return;
    const ops::TermRef fn = t->operand(0);
    const auto it = names.by_fn.find(fn);
    if (it == names.by_fn.end() || g.def_name(fn)) return;
    g.defs.push_back({it->second, fn});
  });
}

}  // namespace eqsat::python
