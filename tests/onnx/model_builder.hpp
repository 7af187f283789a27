// Small ONNX models built in C++ for the tests: inputs, initializers and
// nodes of the default domain, written to a file.
#pragma once

#include "onnx/proto.hpp"
#include "onnx/tensor_proto.hpp"

#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

namespace eqsat::testing {

namespace pb = eqsat::onnx::pb;

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 17) {
    model_.set_ir_version(8);
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("g");
  }
  pb::ModelProto& model() { return model_; }
  pb::GraphProto& graph() { return *model_.mutable_graph(); }

  // A float (or `elem`) input of static `dims`.
  ModelBuilder& input(const std::string& name, std::vector<std::int64_t> dims,
                      int elem = pb::TensorProto::FLOAT) {
    value(graph().add_input(), name, dims, elem);
    return *this;
  }
  ModelBuilder& output(const std::string& name) {
    graph().add_output()->set_name(name);
    return *this;
  }
  ModelBuilder& initializer(const std::string& name, const ops::Array& a) {
    *graph().add_initializer() = onnx::write_tensor(a, name);
    return *this;
  }
  pb::NodeProto& node(const std::string& op, std::vector<std::string> in,
                      std::vector<std::string> out, const std::string& name = "") {
    pb::NodeProto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return *n;
  }
  static void attr(pb::NodeProto& n, const std::string& name, std::int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(pb::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(pb::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(pb::AttributeProto::FLOAT);
    a->set_f(v);
  }
  std::string write(const std::string& path) const {
    std::ofstream out(path, std::ios::binary);
    model_.SerializeToOstream(&out);
    return path;
  }

  static void value(pb::ValueInfoProto* v, const std::string& name,
                    const std::vector<std::int64_t>& dims, int elem) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* shape = t->mutable_shape();
    for (auto d : dims) shape->add_dim()->set_dim_value(d);
  }

 private:
  pb::ModelProto model_;
};

}  // namespace eqsat::testing
