// Test helper: terse construction of terms and graphs for the backend's
// tests (the graph parser is not needed to test the executor).
#pragma once

#include "ops/graph.hpp"
#include "ops/term.hpp"

#include <fmt/format.h>

#include <vector>

namespace eqsat::test {

using ops::AttrKey;
using ops::DType;
using ops::OpKind;
using ops::TermRef;

inline ops::TensorType ty(DType d, ops::Dims dims = {}) {
  return {d, std::move(dims)};
}

inline TermRef input(const std::string& name, DType d, ops::Dims dims = {}) {
  return ops::Term::input(name, ty(d, std::move(dims)));
}

inline TermRef op(OpKind kind, std::vector<TermRef> operands, ops::Attrs attrs = {}) {
  return ops::Term::make(kind, std::move(attrs), std::move(operands));
}

inline TermRef f64(double v) {
  return ops::Term::scalar(DType::F64, v);
}

inline TermRef i64(std::int64_t v) {
  return ops::Term::scalar(DType::I64, static_cast<double>(v));
}

inline TermRef param(std::int64_t k, DType d, ops::Dims dims = {}) {
  return ops::Term::nominal(k, ty(d, std::move(dims)));
}

inline TermRef get(std::int64_t i, TermRef tuple) {
  return op(OpKind::Get, {tuple}, {{AttrKey::Index, i}});
}

// A scan: `operands` are n-steps (if spec.has_n_steps) then the outer
// inputs in slot order.
inline TermRef scan(const ops::ScanSpec& spec, TermRef body, std::vector<TermRef> operands) {
  operands.insert(operands.begin(), body);
  return op(OpKind::Scan, std::move(operands), {{AttrKey::Scan, spec}});
}

inline ops::Graph graph(std::vector<TermRef> inputs, std::vector<TermRef> outputs) {
  ops::Graph g;
  g.inputs = std::move(inputs);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    g.outputs.push_back({fmt::format("out{}", i), outputs[i]});
  return g;
}

inline ops::Array vec(std::vector<double> values, DType d = DType::F64) {
  ops::Array a(d, {static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i)
    ops::visit_dtype(
        d, [&]<class T>(std::type_identity<T>) { a.data<T>()[i] = static_cast<T>(values[i]); });
  return a;
}

inline std::vector<double> values(const ops::Array& a) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < a.size(); ++i) v.push_back(a.element(i));
  return v;
}

}  // namespace eqsat::test
