#include "graph_writer.hpp"

#include "export.hpp"
#include "tensor_proto.hpp"

#include <fmt/format.h>

#include <limits>

namespace eqsat::onnx {

using ops::AttrKey;
using ops::DType;
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

std::string GraphWriter::value(TermRef t) {
  if (auto it = names_.find(t); it != names_.end()) return it->second;
  const std::string name = translate(t);
  names_[t] = name;
  return name;
}

std::string GraphWriter::as(TermRef t, DType dtype) {
  const std::string v = value(t);
  return t->tensor_type().dtype == dtype ? v : cast(v, dtype);
}

std::string GraphWriter::cast(const std::string& v, DType d) {
  auto& n = node("Cast", {v});
  attr_int(n, "to", elem_of_dtype(d));
  return n.output(0);
}

std::string GraphWriter::ints(const std::vector<std::int64_t>& v, bool scalar) {
  ops::Array a(DType::I64, scalar ? ops::Dims{} : ops::Dims{static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) a.data<std::int64_t>()[i] = v[i];
  return constant(a);
}

std::string GraphWriter::constant(const ops::Array& a) {
  const std::string name = fresh();
  auto& n = node("Constant", {}, name);
  auto* at = n.add_attribute();
  at->set_name("value");
  at->set_type(pb::AttributeProto::TENSOR);
  *at->mutable_t() = write_tensor(a, name);
  return name;
}

pb::NodeProto& GraphWriter::node(const std::string& op, std::vector<std::string> in,
                                 std::string out) {
  pb::NodeProto* n = g_.add_node();
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  n->add_output(out.empty() ? fresh() : out);
  return *n;
}

void GraphWriter::attr_int(pb::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(pb::AttributeProto::INT);
  a->set_i(v);
}

void GraphWriter::attr_ints(pb::NodeProto& n, const std::string& name,
                            const std::vector<std::int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(pb::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}

std::string GraphWriter::fresh() {
  return fmt::format("v{}", counter_++);
}

std::string GraphWriter::expm1(const std::string& x) {
  const std::string u = node("Exp", {x}).output(0);
  return kahan(x, u, node("Sub", {u, one_like(x)}).output(0), node("Log", {u}).output(0), true);
}

std::string GraphWriter::log1p(const std::string& x) {
  const std::string u = node("Add", {one_like(x), x}).output(0);
  return kahan(x, u, node("Log", {u}).output(0), node("Sub", {u, one_like(x)}).output(0), false);
}

std::string GraphWriter::one_like(const std::string& x) {
  return node("CastLike", {constant(ops::Array::scalar(DType::F64, 1)), x}).output(0);
}

std::string GraphWriter::kahan(const std::string& x, const std::string& u, const std::string& num,
                               const std::string& den, bool exp_form) {
  std::string r = node("Div", {node("Mul", {num, x}).output(0), den}).output(0);
  r = node("Where", {node("Equal", {u, one_like(x)}).output(0), x, r}).output(0);
  auto& inf = node("IsInf", {u});
  attr_int(inf, "detect_negative", 0);
  r = node("Where", {inf.output(0), u, r}).output(0);
  if (exp_form) {
    const std::string zero = node("Sub", {one_like(x), one_like(x)}).output(0);
    r = node("Where", {node("Equal", {u, zero}).output(0), node("Neg", {one_like(x)}).output(0), r})
            .output(0);
  }
  return r;
}

const std::string& GraphWriter::loop_output(TermRef scan, std::size_t i) {
  value(scan);
  return loops_.at(scan).at(i);
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

}  // namespace eqsat::onnx
