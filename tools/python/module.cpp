// The compiled core `eqsat._eqsat` of the Python package `eqsat`
// (docs/python.md; the package's eqsat/*.py add NumPy-style methods, scan,
// function and notebook display on top): graphs parsed from text or built
// with NumPy-style operators, the optimizer with the shipped and the user's
// rules, programs compiled once and called on NumPy arrays, and the rule
// checker. Every user error raises eqsat.Error with the same message the
// command line prints.
#include "arrays.hpp"
#include "bodies.hpp"
#include "compiled_program.hpp"
#include "dtype_names.hpp"
#include "errors.hpp"
#include "expr.hpp"
#include "onnx_io.hpp"

#include "backend/blas_start.hpp"
#include "backend/program.hpp"
#include "backend/runtime_error.hpp"
#include "ops/diagnostic.hpp"
#include "ops/graph.hpp"
#include "ops/graph_parser.hpp"
#include "ops/graph_printer.hpp"
#include "ops/post_order.hpp"
#include "ops/type_error.hpp"
#include "rules/lang/builtin_appliers.hpp"
#include "rules/lang/rule_check.hpp"
#include "rules/lang/rule_parser.hpp"
#include "rules/pipeline/dot_picture.hpp"
#include "rules/pipeline/explore.hpp"
#include "rules/pipeline/optimize.hpp"
#include "rules/pipeline/shown_cost.hpp"
#include "rules/pipeline/validate.hpp"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace py = pybind11;

namespace eqsat::python {

namespace {

// For every binding that may build terms (docs: compiled_program.hpp).
using BuildsTerms = py::call_guard<TermTableLock>;

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": error: cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rule program of the shipped rules plus `files` (only `files` when
// `default_rules` is false), as `eqsat optimize --rules` loads it; its
// warnings (a rule set no step runs, a user rule failing the quick numeric
// check) become Python warnings. `fast_math` adds the fast-math set as
// `--fast-math` does.
rules::RuleProgram load_rules(const std::vector<std::string>& files, bool default_rules,
                              bool trust_rules, bool fast_math) {
  rules::LoadedRules loaded =
      rules::load_rules({files, default_rules || files.empty(), !trust_rules, fast_math});
  for (const std::string& w : loaded.warnings) PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1);
  return std::move(loaded.program);
}

// A graph whose outputs are `outputs` (a dict name -> Expr, or a sequence
// of Exprs named out0, out1, ...) and whose inputs are `inputs` in that
// order, or every input the outputs use, in the order they were created.
ops::Graph graph_of(const py::object& outputs, const py::object& inputs) {
  ops::Graph g;
  if (py::isinstance<py::dict>(outputs)) {
    for (const auto& [name, e] : outputs.cast<py::dict>())
      g.outputs.push_back({name.cast<std::string>(), e.cast<Expr>().term});
  } else if (py::isinstance<Expr>(outputs)) {
    g.outputs.push_back({"out0", outputs.cast<Expr>().term});
  } else {
    for (const py::handle& e : outputs)
      g.outputs.push_back({"out" + std::to_string(g.outputs.size()), e.cast<Expr>().term});
  }
  for (const auto& o : g.outputs)
    if (o.term->is_tuple() || !o.term->free_nominals().empty())
      throw Error("output '" + o.name + "' is " +
                  (o.term->is_tuple() ? "a tuple (use eqsat.get)" : "a value inside a body"));
  add_called_defs(g);
  if (!inputs.is_none()) {
    for (const py::handle& e : inputs) {
      const ops::TermRef t = e.cast<Expr>().term;
      if (t->kind() != ops::OpKind::Input) throw Error("inputs must be eqsat.input(...) values");
      g.inputs.push_back(t);
    }
    return g;
  }
  // Every input the outputs reach (bodies are closed, so they hold none).
  std::vector<ops::TermRef> roots;
  for (const auto& o : g.outputs) roots.push_back(o.term);
  ops::for_each_post_order(
      roots, ops::Bodies::Skip,
      [&](ops::TermRef t) {
        if (t->kind() == ops::OpKind::Input) g.inputs.push_back(t);
      },
      [](ops::TermRef t) { return t->uses_input(); });
  std::ranges::sort(g.inputs, {}, [](ops::TermRef t) { return t->id(); });
  return g;
}

std::string describe_type(ops::TermRef t) {
  return ops::to_string(t->type());
}

const ops::TensorType& tensor_type_of(const Expr& x) {
  if (x.term->is_tuple())
    throw Error(
        "a tuple (a loop's or a call's outputs) has no dtype or shape; read one output "
        "with eqsat.get(t, index=i)");
  return x.term->tensor_type();
}

// The graph as compiled from Python: refused with a Python hint while it
// still contains `grad` (the executor's own message names the command line).
std::unique_ptr<CompiledProgram> compile_graph(const ops::Graph& g) {
  bool has_grad = false;
  std::vector<ops::TermRef> roots;
  for (const auto& o : g.outputs) roots.push_back(o.term);
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](ops::TermRef t) {
    has_grad = has_grad || t->kind() == ops::OpKind::Grad;
  });
  if (has_grad)
    throw Error(
        "compile: the graph still contains grad, which only the optimizer expands: "
        "compile eqsat.optimize(graph)");
  // CompiledProgram takes the term table itself, which is never waited for
  // while holding the GIL (compiled_program.hpp).
  const py::gil_scoped_release unlocked;
  return std::make_unique<CompiledProgram>(g);
}

// Runs a compiled program on positional and keyword NumPy arrays (keywords
// name the graph's inputs); one array per output, or the array alone when
// the graph has one output.
py::object call_program(CompiledProgram& prog, const py::args& args, const py::kwargs& kwargs) {
  const auto& inputs = prog.inputs();
  if (args.size() > inputs.size())
    throw Error(fmt::format("the program takes {} inputs, got {}", inputs.size(), args.size()));
  std::vector<py::object> given(inputs.size());
  for (std::size_t i = 0; i < args.size(); ++i)
    given[i] = py::reinterpret_borrow<py::object>(args[i]);
  for (const auto& [k, v] : kwargs) {
    const std::string name = k.cast<std::string>();
    const auto it = std::ranges::find_if(inputs, [&](ops::TermRef t) {
      return t->attrs().get<std::string>(ops::AttrKey::Name) == name;
    });
    if (it == inputs.end()) throw Error("the program has no input named '" + name + "'");
    const auto i = static_cast<std::size_t>(it - inputs.begin());
    if (given[i]) throw Error("input '" + name + "' given twice");
    given[i] = py::reinterpret_borrow<py::object>(v);
  }
  std::vector<ops::Array> arrays;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& name = inputs[i]->attrs().get<std::string>(ops::AttrKey::Name);
    if (!given[i]) throw Error("missing input '" + name + "'");
    arrays.push_back(from_numpy(given[i], inputs[i]->tensor_type().dtype, name));
  }
  std::vector<ops::Array> outs;
  {
    py::gil_scoped_release unlocked;
    outs = prog.run(std::move(arrays));
  }
  if (outs.size() == 1) return to_numpy(outs[0]);
  py::list result;
  for (const ops::Array& a : outs) result.append(to_numpy(a));
  return result;
}

void bind_expr(py::module_& m) {
  py::class_<Expr> e(m, "Expr", "A value of a graph being built: a hash-consed term.");
  e.def_property_readonly("type", [](const Expr& x) { return describe_type(x.term); })
      .def_property_readonly(
          "dtype",
          [](const Expr& x) { return std::string(ops::dtype_name(tensor_type_of(x).dtype)); })
      .def_property_readonly(
          "shape",
          [](const Expr& x) {
            py::list dims;
            for (auto d : tensor_type_of(x).dims)
              dims.append(d == ops::kUnknownDim ? py::object(py::none()) : py::object(py::int_(d)));
            return py::tuple(dims);
          })
      .def(
          "same", [](const Expr& a, const Expr& b) { return a.term == b.term; },
          "True when both are the same hash-consed term.")
      .def("__hash__", [](const Expr& x) { return std::hash<ops::TermRef>()(x.term); })
      .def("__repr__", [](const Expr& x) {
        if (x.term->is_tuple() || !x.term->free_nominals().empty())
          return "<eqsat.Expr " + describe_type(x.term) + ">";
        ops::Graph g = graph_of(py::cast(x), py::none());
        return "<eqsat.Expr " + describe_type(x.term) + ">\n" + ops::print_graph(g);
      });
  auto binary = [&](const char* name, const char* rname, ops::OpKind kind) {
    e.def(
        name,
        [kind](const Expr& a, const py::object& b) {
          return apply(kind, py::make_tuple(a, b), py::kwargs());
        },
        BuildsTerms());
    if (rname)
      e.def(
          rname,
          [kind](const Expr& a, const py::object& b) {
            return apply(kind, py::make_tuple(b, a), py::kwargs());
          },
          BuildsTerms());
  };
  using K = ops::OpKind;
  binary("__add__", "__radd__", K::Add);
  binary("__sub__", "__rsub__", K::Sub);
  binary("__mul__", "__rmul__", K::Mul);
  binary("__truediv__", "__rtruediv__", K::Div);
  binary("__pow__", "__rpow__", K::Pow);
  binary("__matmul__", "__rmatmul__", K::Dot);
  binary("__lt__", nullptr, K::Lt);
  binary("__le__", nullptr, K::Le);
  binary("__gt__", nullptr, K::Gt);
  binary("__ge__", nullptr, K::Ge);
  binary("__and__", "__rand__", K::LogicalAnd);
  binary("__or__", "__ror__", K::LogicalOr);
  e.def(
      "__neg__", [](const Expr& a) { return apply(K::Neg, py::make_tuple(a), py::kwargs()); },
      BuildsTerms());
  e.def(
      "__abs__", [](const Expr& a) { return apply(K::Abs, py::make_tuple(a), py::kwargs()); },
      BuildsTerms());
  e.def(
      "__invert__",
      [](const Expr& a) { return apply(K::LogicalNot, py::make_tuple(a), py::kwargs()); },
      BuildsTerms());

  m.def("input", &input, py::arg("name"), py::arg("dtype"), py::arg("shape") = py::tuple(),
        BuildsTerms(),
        "A graph input: eqsat.input('x', 'f64', (3, None)); None is an unknown dimension.");
  // One function per op of the catalogue that is written `(op ...)`.
  for (int k = 0; k < ops::kNumOps; ++k) {
    const auto kind = static_cast<ops::OpKind>(k);
    const ops::OpInfo& info = ops::op_info(kind);
    if (info.group == ops::OpGroup::Leaf || kind == K::Fn || kind == K::Scan || kind == K::Call)
      continue;
    const std::string name(info.name);
    m.def(
        name.c_str(),
        [kind](const py::args& args, const py::kwargs& kwargs) {
          return apply(kind, args, kwargs);
        },
        BuildsTerms(), ("The `" + name + "` op of the catalogue (docs/language.md).").c_str());
  }
}

void bind_bodies(py::module_& m) {
  auto types_of = [](const py::list& params, const std::string& what) {
    std::vector<ops::TensorType> types;
    for (const py::handle& p : params) {
      const auto pair = p.cast<py::tuple>();
      types.push_back(tensor_type(pair[0], pair[1], what));
    }
    return types;
  };
  py::class_<Parameters>(m, "_Parameters", "The parameters of a body being built.")
      .def_readonly("values", &Parameters::values);
  m.def(
      "_parameters",
      [types_of](const py::list& params, const std::string& what) {
        return parameters(types_of(params, what));
      },
      py::arg("params"), py::arg("what"), BuildsTerms(),
      "The parameters of a body about to be built, from (dtype, shape) pairs.");
  m.def(
      "_body",
      [](const Parameters& params, const py::list& outputs, const py::list& number_dtypes,
         const std::string& what, bool inline_calls, const std::string& def_name) {
        std::vector<ops::DType> dtypes;
        for (const py::handle& d : number_dtypes) dtypes.push_back(dtype_of(d, what));
        return body(params, outputs, dtypes, what, inline_calls, def_name);
      },
      py::arg("params"), py::arg("outputs"), py::arg("number_dtypes"), py::arg("what"),
      py::arg("inline_calls") = true, py::arg("def_name") = "", BuildsTerms(),
      "A fn term over _parameters; with def_name, a def of that name.");
  m.def("_scan", &scan, py::arg("fn"), py::arg("sequences"), py::arg("mitsots"), py::arg("sitsots"),
        py::arg("nonsequences"), py::arg("n_steps"), py::arg("num_nitsot"), py::arg("until"),
        BuildsTerms(), "A scan term; eqsat.scan (scan.py) gives it PyTensor's signature.");
  m.def(
      "_call",
      [](const Expr& fn, const py::args& args) {
        py::list operands;
        operands.append(fn);
        for (const py::handle& a : args) operands.append(a);
        return apply(ops::OpKind::Call, py::tuple(operands), py::kwargs());
      },
      BuildsTerms(), "Applies a def built by _body to arguments.");
  m.def(
      "_dtype_name",
      [](const py::handle& d) { return std::string(ops::dtype_name(dtype_of(d, "dtype"))); },
      "The eqsat name of a dtype written as eqsat or NumPy spell it.");
}

void bind_graph(py::module_& m) {
  py::class_<ops::Graph>(m, "Graph", "A whole program: inputs, named outputs and defs.")
      .def_static(
          "parse",
          [](const std::string& text, const std::string& file) {
            return ops::parse_graph(text, file, ".");
          },
          py::arg("text"), py::arg("file") = "<string>", BuildsTerms(),
          "A graph from the text of a .eg file.")
      .def_static("load", &ops::parse_graph_file, py::arg("path"), BuildsTerms(),
                  "A graph from a .eg file.")
      .def_static("build", &graph_of, py::arg("outputs"), py::arg("inputs") = py::none(),
                  "A graph of built expressions: outputs is a dict name -> Expr, a list of "
                  "Exprs (named out0, out1, ...) or one Expr; inputs default to every input "
                  "the outputs use, in creation order.")
      .def_property_readonly("inputs",
                             [](const ops::Graph& g) {
                               std::vector<std::string> names;
                               for (ops::TermRef t : g.inputs)
                                 names.push_back(t->attrs().get<std::string>(ops::AttrKey::Name));
                               return names;
                             })
      .def_property_readonly("outputs",
                             [](const ops::Graph& g) {
                               std::vector<std::string> names;
                               for (const auto& o : g.outputs) names.push_back(o.name);
                               return names;
                             })
      .def("output",
           [](const ops::Graph& g, const std::string& name) {
             for (const auto& o : g.outputs)
               if (o.name == name) return Expr{o.term};
             throw Error("the graph has no output named '" + name + "'");
           })
      .def(
          "to_string", [](const ops::Graph& g, bool types) { return ops::print_graph(g, {types}); },
          py::arg("types") = false)
      .def("__str__", [](const ops::Graph& g) { return ops::print_graph(g); })
      .def("__eq__", [](const ops::Graph& a, const ops::Graph& b) { return a == b; });
}

void bind_pipeline(py::module_& m) {
  m.def(
      "optimize",
      [](const ops::Graph& g, const std::vector<std::string>& rules, bool default_rules,
         bool trust_rules, bool report, std::size_t validate, bool fast_math) -> py::object {
        const rules::RuleProgram program = load_rules(rules, default_rules, trust_rules, fast_math);
        rules::OptimizeReport r;
        ops::Graph out;
        std::optional<rules::ValidationMismatch> mismatch;
        {
          py::gil_scoped_release unlocked;
          out = rules::optimize(g, program, &r);
          if (validate > 0)
            mismatch = rules::validate_optimization(g, out, program, {}, {.input_sets = validate})
                           .mismatch;
        }
        if (mismatch) {
          std::string text = rules::to_string(*mismatch, "graph");
          text.pop_back();  // the final newline
          throw Error(text);
        }
        if (!report) return py::cast(out);
        py::object json = py::module_::import("json");
        return py::make_tuple(out, json.attr("loads")(r.to_json().dump()));
      },
      py::arg("graph"), py::arg("rules") = std::vector<std::string>{},
      py::arg("default_rules") = true, py::arg("trust_rules") = false, py::arg("report") = false,
      py::arg("validate") = 0, py::arg("fast_math") = false, BuildsTerms(),
      "The cheapest equivalent graph under the shipped rules plus the given rule files "
      "(only the given ones with default_rules=False; trust_rules=True skips the quick "
      "numeric check of the given rules; fast_math=True also saturates the fast-math set, "
      "as --fast-math); with report=True, a pair (graph, report dict). "
      "validate=N runs the graph and the result on N random input sets and raises "
      "eqsat.Error naming the output, the input set and the rules on the path if they differ.");

  m.def(
      "_explore",
      [](const ops::Graph& g, std::size_t count, const std::vector<std::string>& rules,
         bool default_rules, bool trust_rules, bool fast_math) {
        const rules::RuleProgram program = load_rules(rules, default_rules, trust_rules, fast_math);
        std::vector<rules::Alternative> found;
        {
          py::gil_scoped_release unlocked;
          found = rules::explore(g, program, count);
        }
        py::list out;
        for (const rules::Alternative& a : found) {
          const rules::ShownCost cost = rules::shown_cost(a.cost);
          out.append(py::make_tuple(a.graph, cost.ns ? py::cast(*cost.ns) : py::none(),
                                    rules::describe(cost)));
        }
        return out;
      },
      py::arg("graph"), py::arg("count") = 5, py::arg("rules") = std::vector<std::string>{},
      py::arg("default_rules") = true, py::arg("trust_rules") = false, py::arg("fast_math") = false,
      BuildsTerms(),
      "Up to count equivalent graphs, cheapest first: (graph, estimated ns or None, the "
      "cost as text with its penalties named); fast_math=True also saturates the fast-math "
      "set, as --fast-math.");
  m.def("_graph_dot", &rules::graph_dot, py::arg("graph"), "The graph's term DAG as DOT text.");

  py::class_<CompiledProgram>(m, "Program",
                              "A graph compiled for the CPU executor; calls from several "
                              "threads run at once, each on its own executor state.")
      .def("__call__", &call_program)
      .def_property_readonly("inputs",
                             [](const CompiledProgram& p) {
                               std::vector<std::string> names;
                               for (ops::TermRef t : p.inputs())
                                 names.push_back(t->attrs().get<std::string>(ops::AttrKey::Name));
                               return names;
                             })
      .def_property_readonly("outputs", &CompiledProgram::output_names);
  m.def("compile", &compile_graph, py::arg("graph"),
        "Compiles a graph once; call the result on NumPy arrays.");

  m.def(
      "check_rules",
      [](const py::object& paths, std::uint64_t seed, long long attempts) {
        if (attempts < 1 || attempts > static_cast<long long>(rules::kMaxCheckAttempts))
          throw py::value_error(fmt::format("check_rules: attempts must be from 1 to {}, got {}",
                                            rules::kMaxCheckAttempts, attempts));
        std::vector<std::string> files;
        if (py::isinstance<py::str>(paths))
          files.push_back(paths.cast<std::string>());
        else
          files = paths.cast<std::vector<std::string>>();
        std::vector<rules::RuleSource> sources;
        for (const std::string& f : files) sources.push_back({f, read_text_file(f)});
        const rules::RuleProgram program =
            rules::parse_rules(sources, rules::builtin_applier_names());
        py::list out;
        // Checked without the GIL; Ctrl-C (a pending signal) stops it
        // within 64 attempts.
        rules::RuleCheckOptions options{seed, static_cast<std::size_t>(attempts)};
        std::size_t calls = 0;
        options.before_attempt = [&calls] {
          if (++calls % 64 != 0) return;
          py::gil_scoped_acquire locked;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        };
        for (const rules::ast::Rewrite& r : program.rewrites()) {
          const rules::RuleVerdict v = [&] {
            py::gil_scoped_release unlocked;
            return rules::check_rule(r, options);
          }();
          py::dict d;
          d["name"] = r.name;
          d["verdict"] = std::string(rules::to_string(v.kind));
          d["instances"] = v.instances;
          d["counterexample"] = v.counterexample;
          out.append(d);
        }
        return out;
      },
      py::arg("paths"), py::arg("seed") = 1, py::arg("attempts") = 300, BuildsTerms(),
      "Tests every rewrite of the rule files on random inputs (attempts: 1 to 100000 per rule "
      "direction; Ctrl-C stops it): one dict per rule with name, verdict (sound, unsound, "
      "untested, finite only), instances and counterexample.");
}

}  // namespace

PYBIND11_MODULE(_eqsat, m) {
  m.doc() = "eqsat: optimize and run array programs by equality saturation";
  m.attr("__version__") = EQSAT_VERSION;
  static py::exception<Error> error = py::register_exception<Error>(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ops::DiagnosticError& e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (const ops::TypeError& e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (const backend::RuntimeError& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  // The module's OpenBLAS is a shared library (NumPy's too) that started
  // before eqsat could choose its kernels (backend/blas_start.hpp): say so
  // when they are its generic ones.
  const std::string slow =
      backend::generic_blas_warning(backend::blas_kernels(), backend::blas_core());
  if (!slow.empty() && PyErr_WarnEx(PyExc_RuntimeWarning, slow.c_str(), 1) < 0)
    throw py::error_already_set();
  bind_expr(m);
  bind_bodies(m);
  bind_graph(m);
  bind_onnx(m);
  bind_pipeline(m);
}

}  // namespace eqsat::python
