#include "export.hpp"

#include "proto.hpp"
#include "tensor_proto.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

namespace eqsat::onnx {

namespace {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;

void set_type(pb::ValueInfoProto* v, const std::string& name, const ops::TensorType& t) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_of_dtype(t.dtype));
  auto* shape = tt->mutable_shape();
  for (auto d : t.dims) {
    auto* dim = shape->add_dim();
    if (d != ops::kUnknownDim) dim->set_dim_value(d);
  }
}

std::vector<std::int64_t> axes_of(const ops::Attrs& a, int rank) {
  std::vector<std::int64_t> axes;
  if (const auto* v = a.find(AttrKey::Axis)) {
    if (const auto* one = std::get_if<std::int64_t>(v)) axes.push_back(*one);
    if (const auto* many = std::get_if<ops::IntList>(v)) axes = *many;
  } else {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  return axes;
}

// One ONNX graph being written: the main graph or a Loop body. `params`
// names the nominals of the body.
class GraphWriter {
 public:
  GraphWriter(pb::GraphProto& g, int& counter, std::vector<std::string> params)
      : g_(g), counter_(counter), params_(std::move(params)) {}

  std::string value(TermRef t);
  // `name` as `dtype` (a Cast when it differs).
  std::string as(TermRef t, DType dtype) {
    const std::string v = value(t);
    return t->tensor_type().dtype == dtype ? v : cast(v, dtype);
  }
  std::string cast(const std::string& v, DType d) {
    auto& n = node("Cast", {v});
    attr_int(n, "to", elem_of_dtype(d));
    return n.output(0);
  }
  std::string ints(const std::vector<std::int64_t>& v, bool scalar = false) {
    ops::Array a(DType::I64, scalar ? ops::Dims{} : ops::Dims{static_cast<std::int64_t>(v.size())});
    for (std::size_t i = 0; i < v.size(); ++i) a.data<std::int64_t>()[i] = v[i];
    return constant(a);
  }
  std::string constant(const ops::Array& a) {
    const std::string name = fresh();
    auto& n = node("Constant", {}, name);
    auto* at = n.add_attribute();
    at->set_name("value");
    at->set_type(pb::AttributeProto::TENSOR);
    *at->mutable_t() = write_tensor(a, name);
    return name;
  }
  pb::NodeProto& node(const std::string& op, std::vector<std::string> in, std::string out = "") {
    pb::NodeProto* n = g_.add_node();
    n->set_op_type(op);
    for (auto& i : in) n->add_input(i);
    n->add_output(out.empty() ? fresh() : out);
    return *n;
  }
  static void attr_int(pb::NodeProto& n, const std::string& name, std::int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(pb::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_ints(pb::NodeProto& n, const std::string& name,
                        const std::vector<std::int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(pb::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  std::string fresh() { return fmt::format("v{}", counter_++); }

  // expm1 and log1p, which ONNX lacks, by Kahan's formulas (a few ulps):
  // expm1 x = (u - 1)·x / log u with u = eˣ (x itself when u rounds to 1,
  // u at ∞); log1p x = log(u)·x / (u - 1) with u = 1 + x (x when u rounds
  // to 1, u at ∞).
  std::string expm1(const std::string& x) {
    const std::string u = node("Exp", {x}).output(0);
    return kahan(x, u, node("Sub", {u, one_like(x)}).output(0), node("Log", {u}).output(0), true);
  }
  std::string log1p(const std::string& x) {
    const std::string u = node("Add", {one_like(x), x}).output(0);
    return kahan(x, u, node("Log", {u}).output(0), node("Sub", {u, one_like(x)}).output(0), false);
  }

 private:
  std::string translate(TermRef t);
  std::string loop(TermRef t);

  std::string one_like(const std::string& x) {
    return node("CastLike", {constant(ops::Array::scalar(DType::F64, 1)), x}).output(0);
  }
  // num·x / den, x where u rounds to 1, u where u is ∞ (and, for expm1, -1 where u is 0).
  std::string kahan(const std::string& x, const std::string& u, const std::string& num,
                    const std::string& den, bool exp_form) {
    std::string r = node("Div", {node("Mul", {num, x}).output(0), den}).output(0);
    r = node("Where", {node("Equal", {u, one_like(x)}).output(0), x, r}).output(0);
    auto& inf = node("IsInf", {u});
    attr_int(inf, "detect_negative", 0);
    r = node("Where", {inf.output(0), u, r}).output(0);
    if (exp_form) {
      const std::string zero = node("Sub", {one_like(x), one_like(x)}).output(0);
      r = node("Where",
               {node("Equal", {u, zero}).output(0), node("Neg", {one_like(x)}).output(0), r})
              .output(0);
    }
    return r;
  }

  pb::GraphProto& g_;
  int& counter_;
  std::vector<std::string> params_;
  std::map<TermRef, std::string> names_;
  std::map<TermRef, std::vector<std::string>> loops_;  // a scan's ONNX outputs, in tuple order
};

std::string GraphWriter::value(TermRef t) {
  if (auto it = names_.find(t); it != names_.end()) return it->second;
  const std::string name = translate(t);
  names_[t] = name;
  return name;
}

std::string GraphWriter::translate(TermRef t) {
  const ops::Attrs& a = t->attrs();
  auto in = [&](std::size_t i) { return value(t->operand(i)); };
  const DType out = t->is_tuple() ? DType::F64 : t->tensor_type().dtype;
  auto same = [&](std::size_t i) { return as(t->operand(i), out); };
  const int rank0 =
      t->arity() > 0 && !t->operand(0)->is_tuple() ? t->operand(0)->tensor_type().rank() : 0;
  auto unary = [&](const char* op) { return node(op, {same(0)}).output(0); };
  auto binary = [&](const char* op) { return node(op, {same(0), same(1)}).output(0); };
  auto compare = [&](const char* op) {
    const DType d =
        ops::promote(t->operand(0)->tensor_type().dtype, t->operand(1)->tensor_type().dtype);
    return node(op, {as(t->operand(0), d), as(t->operand(1), d)}).output(0);
  };
  auto reduce = [&](const char* op) {
    const bool axes_input = std::string_view(op) == "ReduceSum";
    const std::string x = same(0), axes = axes_input ? ints(axes_of(a, rank0)) : "";
    auto& n = axes_input ? node(op, {x, axes}) : node(op, {x});
    if (!axes_input) attr_ints(n, "axes", axes_of(a, rank0));
    attr_int(n, "keepdims", a.get_or<bool>(AttrKey::Keepdims, false));
    return n.output(0);
  };
  switch (t->kind()) {
    case OpKind::Input:
      return a.get<std::string>(AttrKey::Name);
    case OpKind::Nominal:
      return params_.at(static_cast<std::size_t>(a.get<std::int64_t>(AttrKey::Slot)));
    case OpKind::Const:
      return constant(*t->const_value());
    case OpKind::Neg:
      return unary("Neg");
    case OpKind::Abs:
      return unary("Abs");
    case OpKind::Sign:
      return unary("Sign");
    case OpKind::Square:
      return node("Mul", {same(0), same(0)}).output(0);
    case OpKind::Exp:
      return unary("Exp");
    case OpKind::Log:
      return unary("Log");
    case OpKind::Sqrt:
      return unary("Sqrt");
    case OpKind::Reciprocal:
      return unary("Reciprocal");
    case OpKind::Sin:
      return unary("Sin");
    case OpKind::Cos:
      return unary("Cos");
    case OpKind::Tanh:
      return unary("Tanh");
    case OpKind::Erf:
      return unary("Erf");
    case OpKind::Sigmoid:
      return unary("Sigmoid");
    case OpKind::Softplus:
      return unary("Softplus");
    case OpKind::Floor:
      return unary("Floor");
    case OpKind::Ceil:
      return unary("Ceil");
    case OpKind::LogicalNot:
      return node("Not", {as(t->operand(0), DType::Bool)}).output(0);
    case OpKind::Cast:
      return cast(in(0), out);
    case OpKind::Add:
      return binary("Add");
    case OpKind::Sub:
      return binary("Sub");
    case OpKind::Mul:
      return binary("Mul");
    case OpKind::Div:
      return binary("Div");
    case OpKind::Pow:
      return binary("Pow");
    case OpKind::Maximum:
      return binary("Max");
    case OpKind::Minimum:
      return binary("Min");
    case OpKind::Eq:
      return compare("Equal");
    case OpKind::Ne:
      return node("Not", {compare("Equal")}).output(0);
    case OpKind::Lt:
      return compare("Less");
    case OpKind::Le:
      return compare("LessOrEqual");
    case OpKind::Gt:
      return compare("Greater");
    case OpKind::Ge:
      return compare("GreaterOrEqual");
    case OpKind::LogicalAnd:
      return node("And", {as(t->operand(0), DType::Bool), as(t->operand(1), DType::Bool)})
          .output(0);
    case OpKind::LogicalOr:
      return node("Or", {as(t->operand(0), DType::Bool), as(t->operand(1), DType::Bool)}).output(0);
    case OpKind::Where:
      return node("Where", {as(t->operand(0), DType::Bool), same(1), same(2)}).output(0);
    case OpKind::Sum:
      return reduce("ReduceSum");
    case OpKind::Prod:
      return reduce("ReduceProd");
    case OpKind::Max:
      return reduce("ReduceMax");
    case OpKind::Min:
      return reduce("ReduceMin");
    case OpKind::Mean:
      return reduce("ReduceMean");
    case OpKind::Logsumexp:
      return reduce("ReduceLogSumExp");
    case OpKind::Softmax:
    case OpKind::LogSoftmax: {
      auto& n = node(t->kind() == OpKind::Softmax ? "Softmax" : "LogSoftmax", {same(0)});
      attr_int(n, "axis", axes_of(a, rank0).at(0));
      return n.output(0);
    }
    case OpKind::Dot:
      return binary("MatMul");
    case OpKind::Reshape: {
      auto& n = node("Reshape", {in(0), ints(a.get<ops::IntList>(AttrKey::Shape))});
      attr_int(n, "allowzero", 1);
      return n.output(0);
    }
    case OpKind::Transpose: {
      auto& n = node("Transpose", {in(0)});
      if (a.has(AttrKey::Perm)) attr_ints(n, "perm", a.get<ops::IntList>(AttrKey::Perm));
      return n.output(0);
    }
    case OpKind::ExpandDims:
      return node("Unsqueeze", {in(0), ints(axes_of(a, rank0))}).output(0);
    case OpKind::Squeeze:
      return node("Squeeze", {in(0), ints(axes_of(a, rank0))}).output(0);
    case OpKind::BroadcastTo:
      return node("Expand", {in(0), ints(a.get<ops::IntList>(AttrKey::Shape))}).output(0);
    case OpKind::Flip: {
      const auto axes = axes_of(a, rank0);
      const auto lo = std::numeric_limits<std::int64_t>::min();
      return node("Slice", {in(0), ints(std::vector<std::int64_t>(axes.size(), -1)),
                            ints(std::vector<std::int64_t>(axes.size(), lo)), ints(axes),
                            ints(std::vector<std::int64_t>(axes.size(), -1))})
          .output(0);
    }
    case OpKind::Concat: {
      std::vector<std::string> xs;
      for (std::size_t i = 0; i < t->arity(); ++i) xs.push_back(same(i));
      auto& n = node("Concat", xs);
      attr_int(n, "axis", axes_of(a, rank0).at(0));
      return n.output(0);
    }
    case OpKind::Stack: {
      const auto axis = axes_of(a, rank0 + 1).at(0);
      std::vector<std::string> xs;
      for (std::size_t i = 0; i < t->arity(); ++i)
        xs.push_back(node("Unsqueeze", {same(i), ints({axis})}).output(0));
      auto& n = node("Concat", xs);
      attr_int(n, "axis", axis);
      return n.output(0);
    }
    case OpKind::Dim: {
      const auto axis = axes_of(a, rank0).at(0);
      auto& s = node("Shape", {in(0)});
      attr_int(s, "start", axis);
      attr_int(s, "end", axis + 1);
      return node("Squeeze", {s.output(0), ints({0})}).output(0);
    }
    case OpKind::Index: {
      auto& n = node("Gather", {in(0), as(t->operand(1), DType::I64)});
      attr_int(n, "axis", 0);
      return n.output(0);
    }
    case OpKind::Slice: {
      const std::int64_t step = a.get_or<std::int64_t>(AttrKey::Step, 1);
      const auto big = std::numeric_limits<std::int64_t>::max(),
                 small = std::numeric_limits<std::int64_t>::min();
      const std::int64_t start = a.get_or<std::int64_t>(AttrKey::Start, step > 0 ? 0 : big);
      const std::int64_t stop = a.get_or<std::int64_t>(AttrKey::Stop, step > 0 ? big : small);
      return node("Slice", {in(0), ints({start}), ints({stop}), ints({axes_of(a, rank0).at(0)}),
                            ints({step})})
          .output(0);
    }
    case OpKind::Zeros:
    case OpKind::Ones: {
      const auto& shape = a.get<ops::IntList>(AttrKey::Shape);
      return constant(ops::Array::filled(out, ops::Dims(shape.begin(), shape.end()),
                                         t->kind() == OpKind::Ones));
    }
    case OpKind::Full:
      return node("Expand", {same(0), ints(a.get<ops::IntList>(AttrKey::Shape))}).output(0);
    case OpKind::ZerosLike:
    case OpKind::OnesLike: {
      const std::string v = constant(ops::Array::scalar(out, t->kind() == OpKind::OnesLike));
      return node("Expand", {v, node("Shape", {in(0)}).output(0)}).output(0);
    }
    case OpKind::Arange:
      return node("Range", {constant(ops::Array::scalar(out, 0)), as(t->operand(0), out),
                            constant(ops::Array::scalar(out, 1))})
          .output(0);
    case OpKind::Scan:
      return loop(t);
    case OpKind::Get: {
      value(t->operand(0));
      return loops_.at(t->operand(0))
          .at(static_cast<std::size_t>(a.get<std::int64_t>(AttrKey::Index)));
    }
    case OpKind::Expm1:
      return expm1(same(0));
    case OpKind::Log1p:
      return log1p(same(0));
    case OpKind::Logaddexp: {
      // max + log1p(exp(-|a - b|)); equal operands (±inf too) give a + ln 2
      const std::string x = same(0), y = same(1);
      const std::string d =
          node("Neg", {node("Abs", {node("Sub", {x, y}).output(0)}).output(0)}).output(0);
      const std::string r =
          node("Add", {node("Max", {x, y}).output(0), log1p(node("Exp", {d}).output(0))}).output(0);
      const std::string tie =
          node("Add", {x, constant(ops::Array::scalar(out, std::log(2.0)))}).output(0);
      return node("Where", {node("Equal", {x, y}).output(0), tie, r}).output(0);
    }
    case OpKind::Log1mexp:
    case OpKind::Hypot:
    case OpKind::ResizeRows:
    case OpKind::SetIndex:
    case OpKind::IncIndex:
    case OpKind::SetSlice:
    case OpKind::IncSlice:
    case OpKind::Fn:
    case OpKind::Call:
    case OpKind::Grad:
      break;
  }
  throw ExportError(fmt::format("the op '{}' has no exact ONNX counterpart in eqsat's export",
                                ops::op_name(t->kind())));
}

// A scan as an ONNX Loop: M = the number of steps, the body gathers each
// sequence's element at the iteration number (plus its tap), carries the
// sit-sots, and emits every state and nit-sot as scan outputs.
std::string GraphWriter::loop(TermRef t) {
  const auto& spec = t->attrs().get<ops::ScanSpec>(AttrKey::Scan);
  if (!spec.mitsot_taps.empty())
    throw ExportError("a scan with mit-sots has no ONNX export in eqsat");
  TermRef fn = t->operand(0);
  std::size_t at = 1;
  std::string m;
  if (spec.has_n_steps) m = as(t->operand(at++), DType::I64);
  std::vector<std::pair<std::string, std::int64_t>> seqs;  // outer name, tap
  std::vector<std::string> lens;
  for (const auto& taps : spec.sequence_taps) {
    const std::string s = value(t->operand(at++));
    for (auto k : taps) seqs.push_back({s, k});
    auto& shape = node("Shape", {s});
    attr_int(shape, "start", 0);
    attr_int(shape, "end", 1);
    lens.push_back(node("Sub", {shape.output(0), ints({taps.back()})}).output(0));
  }
  if (!spec.has_n_steps) {
    std::string shortest = lens.at(0);
    for (std::size_t i = 1; i < lens.size(); ++i)
      shortest = node("Min", {shortest, lens[i]}).output(0);
    m = node("Squeeze", {node("Max", {shortest, ints({0})}).output(0), ints({0})}).output(0);
  }
  std::vector<std::string> inits;
  for (std::int64_t i = 0; i < spec.num_sitsot; ++i) inits.push_back(value(t->operand(at++)));
  std::vector<std::string> nonseqs;
  for (std::int64_t i = 0; i < spec.num_nonsequences; ++i)
    nonseqs.push_back(value(t->operand(at++)));

  pb::NodeProto& n = node("Loop", {m, ""});
  n.clear_output();
  auto* body_attr = n.add_attribute();
  body_attr->set_name("body");
  body_attr->set_type(pb::AttributeProto::GRAPH);
  pb::GraphProto& body = *body_attr->mutable_g();
  body.set_name(fresh());
  const std::string iter = fresh(), cond = fresh();
  set_type(body.add_input(), iter, {DType::I64, {}});
  set_type(body.add_input(), cond, {DType::Bool, {}});
  std::vector<std::string> params;
  const auto& ptypes = fn->attrs().get<std::vector<ops::TensorType>>(AttrKey::Params);
  GraphWriter inner(body, counter_, {});
  for (const auto& [s, k] : seqs) {
    const std::string i =
        k == 0 ? iter : inner.node("Add", {iter, inner.ints({k}, true)}).output(0);
    auto& g = inner.node("Gather", {s, i});
    attr_int(g, "axis", 0);
    params.push_back(g.output(0));
  }
  for (std::size_t i = 0; i < inits.size(); ++i) {
    const std::string p = fresh();
    set_type(body.add_input(), p, ptypes.at(params.size()));
    params.push_back(p);
  }
  for (auto& s : nonseqs) params.push_back(s);
  inner.params_ = params;
  const auto nout = static_cast<std::size_t>(spec.num_sitsot + spec.num_nitsot);
  std::vector<std::string> outs;
  for (std::size_t i = 0; i < fn->arity(); ++i) outs.push_back(inner.value(fn->operand(i)));
  std::string cond_out = cond;
  if (spec.until)
    cond_out = inner.node("Not", {inner.as(fn->operand(nout), DType::Bool)}).output(0);
  auto output = [&](const std::string& v, TermRef type_of) {
    const std::string o = fresh();
    inner.node("Identity", {v}, o);
    set_type(body.add_output(), o, type_of->tensor_type());
  };
  output(cond_out, spec.until ? fn->operand(nout) : ops::Term::scalar(DType::Bool, 1));
  for (std::int64_t i = 0; i < spec.num_sitsot; ++i)
    output(outs[static_cast<std::size_t>(i)], fn->operand(static_cast<std::size_t>(i)));
  for (std::size_t i = 0; i < nout; ++i) output(outs[i], fn->operand(i));
  n.set_input(1, "");
  for (auto& i : inits) n.add_input(i);
  std::vector<std::string> results;
  for (std::int64_t i = 0; i < spec.num_sitsot; ++i) n.add_output(fresh());
  for (std::size_t i = 0; i < nout; ++i) {
    results.push_back(fresh());
    n.add_output(results.back());
  }
  // :keep k: the last k steps of the stored history
  for (std::size_t i = 0; i < spec.keep.size(); ++i)
    if (spec.keep[i] > 0)
      results[i] = node("Slice", {results[i], ints({-spec.keep[i]}),
                                  ints({std::numeric_limits<std::int64_t>::max()}), ints({0})})
                       .output(0);
  loops_[t] = results;
  return results.empty() ? "" : results[0];
}

}  // namespace

std::string export_model(const ops::Graph& g) {
  if (!g.defs.empty()) throw ExportError("a graph with defs (calls) has no ONNX export in eqsat");
  pb::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("eqsat");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  pb::GraphProto& graph = *model.mutable_graph();
  graph.set_name("eqsat");
  int counter = 0;
  GraphWriter w(graph, counter, {});
  for (auto in : g.inputs)
    set_type(graph.add_input(), in->attrs().get<std::string>(AttrKey::Name), in->tensor_type());
  for (const auto& out : g.outputs) {
    const std::string v = w.value(out.term);
    w.node("Identity", {v}, out.name);
    set_type(graph.add_output(), out.name, out.term->tensor_type());
  }
  return model.SerializeAsString();
}

}  // namespace eqsat::onnx
