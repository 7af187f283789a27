// One ONNX graph being written, the main graph or a Loop body: the ONNX
// name of each term's value (written once, on first use) and the node
// builders the export table's entries use (export_table.hpp). A `scan`
// becomes a Loop whose body is a GraphWriter of its own.
#pragma once

#include "proto.hpp"

#include "ops/term.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace eqsat::onnx {

// The axes an op's :axis names, or all `rank` axes when it names none.
std::vector<std::int64_t> axes_of(const ops::Attrs& a, int rank);

class GraphWriter {
 public:
  // `params` names the nominals of a body; `counter` numbers the values of
  // the whole model.
  GraphWriter(pb::GraphProto& g, int& counter, std::vector<std::string> params)
      : g_(g), counter_(counter), params_(std::move(params)) {}

  std::string value(ops::TermRef t);
  // t's value as `dtype` (a Cast when it differs).
  std::string as(ops::TermRef t, ops::DType dtype);
  std::string cast(const std::string& v, ops::DType d);
  std::string ints(const std::vector<std::int64_t>& v, bool scalar = false);
  std::string constant(const ops::Array& a);
  pb::NodeProto& node(const std::string& op, std::vector<std::string> in, std::string out = "");
  static void attr_int(pb::NodeProto& n, const std::string& name, std::int64_t v);
  static void attr_ints(pb::NodeProto& n, const std::string& name,
                        const std::vector<std::int64_t>& v);
  std::string fresh();

  // expm1 and log1p, which ONNX lacks, by Kahan's formulas (a few ulps):
  // expm1 x = (u - 1)·x / log u with u = eˣ (x itself when u rounds to 1,
  // u at ∞); log1p x = log(u)·x / (u - 1) with u = 1 + x (x when u rounds
  // to 1, u at ∞).
  std::string expm1(const std::string& x);
  std::string log1p(const std::string& x);

  // The ONNX name of the body's parameter `slot`.
  const std::string& param(std::size_t slot) const { return params_.at(slot); }
  // A scan as an ONNX Loop; its value is its first output.
  std::string loop(ops::TermRef scan);
  // Output `i` of a scan's Loop, in the scan's tuple order.
  const std::string& loop_output(ops::TermRef scan, std::size_t i);

 private:
  // The nodes computing t's value, by the export table (export.cpp).
  std::string translate(ops::TermRef t);
  std::string one_like(const std::string& x);
  // num·x / den, x where u rounds to 1, u where u is ∞ (and, for expm1, -1
  // where u is 0).
  std::string kahan(const std::string& x, const std::string& u, const std::string& num,
                    const std::string& den, bool exp_form);

  pb::GraphProto& g_;
  int& counter_;
  std::vector<std::string> params_;
  std::map<ops::TermRef, std::string> names_;
  std::map<ops::TermRef, std::vector<std::string>> loops_;  // a scan's ONNX outputs
};

// `v` named `name` with tensor type `t`.
void set_type(pb::ValueInfoProto* v, const std::string& name, const ops::TensorType& t);

}  // namespace eqsat::onnx
