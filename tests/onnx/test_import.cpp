// The importer (onnx/import.cpp, scope.cpp): names, inputs, initializers,
// side files, the node each term comes from, and the exact text of each
// kind of refusal.
#include "../tools/run_eqsat.hpp"
#include "model_builder.hpp"

#include "backend/evaluate_closed.hpp"
#include "backend/program.hpp"
#include "onnx/import.hpp"
#include "onnx/import_error.hpp"

#include <catch2/catch.hpp>

using eqsat::testing::ModelBuilder;
using eqsat::testing::Scratch;
namespace eo = eqsat::onnx;
namespace ops = eqsat::ops;

namespace {

eo::ImportResult import(const std::string& path, eo::ImportOptions options = {}) {
  options.evaluate = eqsat::backend::evaluate_closed;
  return eo::import_model(path, options);
}

std::string refusal(const std::string& path) {
  try {
    import(path);
  } catch (const eo::ImportError& e) {
    return e.what();
  }
  return "(imported)";
}

}  // namespace

TEST_CASE("import: inputs and outputs keep the model's names, initializers become constants") {
  Scratch s;
  ModelBuilder m;
  m.input("x.1", {2, 3})
      .initializer("w", ops::Array::filled(ops::DType::F32, {3}, 2.0))
      .output("onnx::out");
  m.node("Mul", {"x.1", "w"}, {"onnx::out"});
  const auto r = import(m.write(s.path("m.onnx")));
  REQUIRE(r.graph.inputs.size() == 1);  // the initializer is no input
  CHECK(r.graph.inputs[0]->attrs().get<std::string>(ops::AttrKey::Name) == "x.1");
  REQUIRE(r.graph.outputs.size() == 1);
  CHECK(r.graph.outputs[0].name == "onnx__out");
  const ops::TermRef y = r.graph.outputs[0].term;
  CHECK(y->kind() == ops::OpKind::Mul);
  CHECK(y->operand(1)->const_value() != nullptr);
  CHECK(r.side_files.empty());
}

TEST_CASE("import: with side_dir, constants past the inline limit get a path and a side file") {
  Scratch s;
  ModelBuilder m;
  m.input("x", {20}).initializer("big", ops::Array::filled(ops::DType::F32, {20}, 1.5));
  m.initializer("small", ops::Array::filled(ops::DType::F32, {20}, 0.5)).output("y");
  m.node("Add", {"x", "big"}, {"t"});
  m.node("Slice", {"small", "zero", "four"}, {"s"});
  m.initializer("zero", ops::Array::filled(ops::DType::I64, {1}, 0));
  m.initializer("four", ops::Array::filled(ops::DType::I64, {1}, 4));
  m.node("Pad", {"s", "pads"}, {"p"});
  m.initializer("pads", ops::Array::filled(ops::DType::I64, {2}, 8));
  m.node("Add", {"t", "p"}, {"y"});
  eo::ImportOptions options;
  options.side_dir = "w";
  const auto r = import(m.write(s.path("m.onnx")), options);
  REQUIRE(r.side_files.size() == 2);  // big and small: 20 elements each
  CHECK(r.side_files[0].path == "w/0.npy");
  CHECK(r.side_files[0].value.size() == 20);
  CHECK(r.graph.outputs[0].term->tensor_type().dims == ops::Dims{20});
}

TEST_CASE("import: each term knows its node, and a run-time error there names it") {
  Scratch s;
  ModelBuilder m;
  m.input("a", {2, -1}).input("b", {-1, 3}).output("y");
  m.node("MatMul", {"a", "b"}, {"m"}, "proj");
  m.node("Relu", {"m"}, {"y"});  // unnamed: called by its output
  const std::string path = m.write(s.path("mm.onnx"));
  const auto r = import(path);
  const ops::TermRef y = r.graph.outputs[0].term;
  REQUIRE(r.graph.location(y));
  CHECK(r.graph.location(y)->text() == path + ": node 'y' (Relu)");
  const ops::TermRef product = y->kind() == ops::OpKind::Dot ? y : y->operand(0);
  REQUIRE(r.graph.location(product));
  CHECK(r.graph.location(product)->text() == path + ": node 'proj' (MatMul)");
  CHECK(r.graph.location(r.graph.inputs[0]) == nullptr);  // inputs come from no node
  eqsat::backend::Program p = eqsat::backend::compile(r.graph);
  const ops::Array a = ops::Array::filled(ops::DType::F32, {2, 4}, 1.0);
  const ops::Array b = ops::Array::filled(ops::DType::F32, {5, 3}, 1.0);
  CHECK_THROWS_WITH(p.run({a, b}), Catch::StartsWith(path + ": node 'proj' (MatMul): error: ") &&
                                       Catch::Contains("inner dimensions differ"));
}

TEST_CASE("import: a refusal names the model, the node, its op type and the reason") {
  Scratch s;
  {
    ModelBuilder m;
    m.input("x", {1, 1, 4, 4}).input("w", {1, 1, 3, 3}).output("y");
    m.node("Conv", {"x", "w"}, {"y"}, "conv1");
    const std::string path = m.write(s.path("conv.onnx"));
    CHECK(refusal(path) ==
          path + ": node 'conv1' (Conv): not supported: eqsat has no translation of this op");
  }
  {  // a node without a name is named after its first output
    ModelBuilder m;
    m.input("x", {3}).output("y");
    m.node("Div", {"x", "x"}, {"y"});
    m.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
        eo::pb::TensorProto::INT64);
    const std::string path = m.write(s.path("div.onnx"));
    CHECK(refusal(path) ==
          path +
              ": node 'y' (Div): not supported: integer division of int64 (eqsat divides "
              "integers in float64, which rounds past 2^53)");
  }
  {
    ModelBuilder m;
    m.input("x", {3}, eo::pb::TensorProto::UINT8).output("x");
    const std::string path = m.write(s.path("u8.onnx"));
    CHECK(refusal(path) ==
          path +
              ": input 'x': not supported: input 'x' has dtype uint8 (eqsat has bool, "
              "int32, int64, float, double)");
  }
  {
    ModelBuilder m(5);
    m.input("x", {3}).output("y");
    m.node("Relu", {"x"}, {"y"}, "r");
    const std::string path = m.write(s.path("old.onnx"));
    CHECK(refusal(path) ==
          path +
              ": node 'r' (Relu): not supported: opset 5 (eqsat reads opsets 6 to 17 of "
              "ONNX's default domain)");
  }
  {
    ModelBuilder m;
    m.input("x", {3}).output("y");
    m.node("Relu", {"x"}, {"y"}, "r").set_domain("com.microsoft");
    const std::string path = m.write(s.path("ms.onnx"));
    CHECK(refusal(path) ==
          path +
              ": node 'r' (Relu): not supported: the operator domain 'com.microsoft' "
              "(eqsat reads ONNX's default domain)");
  }
  {  // an attribute the translation would ignore
    ModelBuilder m;
    m.input("x", {3}).output("y");
    ModelBuilder::attr(m.node("Relu", {"x"}, {"y"}, "r"), "alpha", 0.5f);
    const std::string path = m.write(s.path("attr.onnx"));
    CHECK(refusal(path) == path + ": node 'r' (Relu): not supported: the attribute 'alpha'");
  }
  {
    const std::string path = s.write("junk.onnx", "not a model");
    CHECK(refusal(path) == path + ": error: not an ONNX model (the protobuf does not parse)");
    CHECK(refusal(s.path("missing.onnx")) ==
          s.path("missing.onnx") + ": error: cannot read the file");
  }
}

TEST_CASE(
    "import: a shape operand computed at run time is refused, one computed from constants is not") {
  Scratch s;
  ModelBuilder m;
  m.input("x", {2, 6}).input("shape", {2}, eo::pb::TensorProto::INT64).output("y").output("z");
  m.node("Reshape", {"x", "shape"}, {"y"}, "dynamic");
  m.node("Shape", {"x"}, {"sx"});
  m.node("Reshape", {"x", "sx"}, {"z"}, "static");
  const std::string path = m.write(s.path("reshape.onnx"));
  CHECK(refusal(path) ==
        path +
            ": node 'dynamic' (Reshape): not supported: input 1 (shape) is computed at run "
            "time; eqsat needs it when the model is read");
  m.graph().mutable_node()->DeleteSubrange(0, 1);
  m.graph().mutable_output()->DeleteSubrange(0, 1);
  m.graph().mutable_input()->DeleteSubrange(1, 1);
  const auto r = import(m.write(s.path("static.onnx")));
  CHECK(r.graph.outputs[0].term == r.graph.inputs[0]);  // a reshape to its own shape
}

TEST_CASE(
    "import: If with branches of different shapes is refused, a constant condition takes one "
    "branch") {
  Scratch s;
  auto branch = [](const std::string& name, std::vector<std::int64_t> dims) {
    eo::pb::GraphProto g;
    g.set_name(name);
    auto* n = g.add_node();
    n->set_op_type("Constant");
    n->add_output(name + "_out");
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(eo::pb::AttributeProto::TENSOR);
    *a->mutable_t() = eo::write_tensor(ops::Array::filled(ops::DType::F32, dims, 1.0), "v");
    g.add_output()->set_name(name + "_out");
    return g;
  };
  ModelBuilder m;
  m.input("c", {}, eo::pb::TensorProto::BOOL).output("y");
  auto& node = m.node("If", {"c"}, {"y"}, "choose");
  for (auto [attr, dims] :
       {std::pair{"then_branch", std::vector<std::int64_t>{2}}, {"else_branch", {3}}}) {
    auto* a = node.add_attribute();
    a->set_name(attr);
    a->set_type(eo::pb::AttributeProto::GRAPH);
    *a->mutable_g() = branch(attr, dims);
  }
  const std::string path = m.write(s.path("if.onnx"));
  CHECK(refusal(path) ==
        path +
            ": node 'choose' (If): not supported: branch outputs of types (f32 2) and "
            "(f32 3) (eqsat selects between equal static types)");
}

TEST_CASE("is_onnx_model: the .onnx suffix or a ModelProto's first byte") {
  Scratch s;
  CHECK(eo::is_onnx_model("model.onnx"));
  CHECK_FALSE(eo::is_onnx_model(s.write("g.eg", "(input x f64)\n")));
  ModelBuilder m;
  m.input("x", {1}).output("x");
  CHECK(eo::is_onnx_model(m.write(s.path("model.bin"))));
  CHECK_FALSE(eo::is_onnx_model(s.path("missing")));
}
