// The type rules as a table: each row is an expression over the inputs
// below and the type the graph parser infers for it (or the error it
// reports). Covers NumPy broadcasting with unknown dims, every promotion
// rule of docs/language.md (including weak literals) and the shape rules.
#include "ops/graph_parser.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

using namespace eqsat::ops;

namespace {

const char* const kInputs = R"((input b (bool 3))
(input i (i32 3))
(input l (i64 3))
(input f (f32 3))
(input d (f64 3))
(input m (f64 2 3))
(input u (f64 ? 3))
(input w (f32 ? ?))
(input s f64)
(input n i64)
)";

// The inferred type of `expr`, or the message of the error it raises. A
// tuple (a scan) is read through `get`, since outputs are tensors.
std::string type_of(const std::string& expr, bool tuple = false) {
  try {
    const std::string out = tuple ? fmt::format("(get 0 {})", expr) : expr;
    const Graph g = parse_graph(fmt::format("{}(output {})\n", kInputs, out), "t.eg", ".");
    const TermRef t = g.outputs.at(0).term;
    return to_string((tuple ? t->operand(0) : t)->type());
  } catch (const DiagnosticError& e) {
    return "error: " + e.diagnostics().front().message;
  }
}

struct Row {
  const char* expr;
  const char* type;
};

void check_rows(std::initializer_list<Row> rows) {
  for (const Row& row : rows) {
    INFO(row.expr);
    CHECK(type_of(row.expr, std::string_view(row.type).starts_with("(tuple")) == row.type);
  }
}

}  // namespace

TEST_CASE("promotion: the later of bool < i32 < i64 < f32 < f64") {
  check_rows({
      {"(add i l)", "(i64 3)"},
      {"(add i f)", "(f32 3)"},
      {"(add l f)", "(f32 3)"},
      {"(add f d)", "(f64 3)"},
      {"(maximum b i)", "(i32 3)"},
      {"(minimum b b)", "(bool 3)"},
      {"(mul b f)", "(f32 3)"},
      {"(where b i l)", "(i64 3)"},
      {"(concat i f)", "(f32 6)"},
      {"(stack l d)", "(f64 2 3)"},
  });
}

TEST_CASE("div of integers gives f64 - comparisons and logic give bool") {
  check_rows({
      {"(div i i)", "(f64 3)"},
      {"(div l n)", "(f64 3)"},
      {"(div f i)", "(f32 3)"},
      {"(div b b)", "(f64 3)"},
      {"(lt i f)", "(bool 3)"},
      {"(eq d d)", "(bool 3)"},
      {"(logical_and b i)", "(bool 3)"},
      {"(logical_not f)", "(bool 3)"},
      {"(add b b)", "error: add: both operands are bool; cast one to a number first"},
      {"(neg b)", "error: neg: operand is bool; cast it to a number first"},
  });
}

TEST_CASE("weak literals take the dtype of the array they meet") {
  check_rows({
      {"(add i 1)", "(i32 3)"},
      {"(add f 1)", "(f32 3)"},
      {"(add f 1.5)", "(f32 3)"},
      {"(add i 1.5)", "(f64 3)"},  // a float literal meeting integers gives f64
      {"(add l 1.5)", "(f64 3)"},
      {"(add b 1)", "(i64 3)"},
      {"(add b 1.5)", "(f64 3)"},
      {"(add 1 2)", "i64"},
      {"(add 1 2.0)", "f64"},
      {"(pow f 2)", "(f32 3)"},
      {"(div i 2)", "(f64 3)"},
      {"(gt f 0.5)", "(bool 3)"},
      {"(where b f 0)", "(f32 3)"},
      {"(where b 0 1.5)", "(f64 3)"},
      {"(maximum i 0)", "(i32 3)"},
      {"(exp 1)", "f64"},
      {"(set_index f 0 2)", "(f32 3)"},
      {"(full 3 :shape (2))", "(i64 2)"},
      {"(full 3 :shape (2) :dtype f32)", "(f32 2)"},
  });
}

TEST_CASE("float-valued functions of integers give f64") {
  check_rows({
      {"(exp i)", "(f64 3)"},
      {"(exp f)", "(f32 3)"},
      {"(sqrt b)", "(f64 3)"},
      {"(mean i)", "f64"},
      {"(sum i)", "i64"},
      {"(sum f)", "f32"},
      {"(max i)", "i32"},
      {"(softmax i)", "(f64 3)"},
  });
}

TEST_CASE("broadcasting follows NumPy and keeps every dimension it can prove") {
  check_rows({
      {"(add m d)", "(f64 2 3)"},
      {"(add m s)", "(f64 2 3)"},
      {"(add u d)", "(f64 ? 3)"},
      {"(add u m)", "(f64 2 3)"},  // the unknown dim must be 2 (or 1)
      {"(add w m)", "(f64 2 3)"},
      {"(add w f)", "(f32 ? 3)"},
      {"(add (expand_dims d :axis 1) d)", "(f64 3 3)"},
      {"(add m (ones :shape (4 1 1)))", "(f64 4 2 3)"},
      {"(add m (ones :shape (2)))", "error: add: shapes (2 3) and (2) do not broadcast"},
      {"(where (gt m 0) m u)", "(f64 2 3)"},
  });
}

TEST_CASE("reductions, dot and shape ops") {
  check_rows({
      {"(sum m :axis 0)", "(f64 3)"},
      {"(sum m :axis (0 1))", "f64"},
      {"(sum m :axis -1 :keepdims true)", "(f64 2 1)"},
      {"(logsumexp u :axis 1)", "(f64 ?)"},
      {"(dot m d)", "(f64 2)"},
      {"(dot d d)", "f64"},
      {"(dot d (transpose m))", "(f64 2)"},
      {"(dot w (ones :shape (3 5) :dtype f32))", "(f32 ? 5)"},
      {"(dot (ones :shape (4 2 3)) (ones :shape (3 5)))", "(f64 4 2 5)"},
      {"(dot m m)", "error: dot: inner dimensions differ: 3 and 2 for shapes (2 3) and (2 3)"},
      {"(reshape m :shape (3 -1))", "(f64 3 2)"},
      {"(reshape u :shape (-1))", "(f64 ?)"},
      {"(transpose u)", "(f64 3 ?)"},
      {"(squeeze (ones :shape (1 3 1)))", "(f64 3)"},
      {"(broadcast_to d :shape (4 3))", "(f64 4 3)"},
      {"(concat m u :axis 0)", "(f64 ? 3)"},
      {"(concat m m :axis 1)", "(f64 2 6)"},
      {"(stack d d d :axis 1)", "(f64 3 3)"},
      {"(dim u :axis 0)", "i64"},
      {"(index m n)", "(f64 3)"},
      {"(slice m :axis 1 :start 1)", "(f64 2 2)"},
      {"(slice d :step -1)", "(f64 3)"},
      {"(slice d :start -2 :stop 100)", "(f64 2)"},
      {"(slice u :start 1)", "(f64 ? 3)"},
      {"(arange 5)", "(i64 5)"},
      {"(arange n)", "(i64 ?)"},
      {"(zeros :shape (2 3))", "(f64 2 3)"},
      {"(cast m :dtype i32)", "(i32 2 3)"},
  });
}

TEST_CASE("scan result types: steps from sequences, n-steps, taps, until and keep") {
  check_rows({
      {"(scan :sequences (m) :sit-sot (d) (fn (r h) (add r h)))", "(tuple (f64 2 3))"},
      {"(scan :sequences ((m :taps (0 1))) :nit-sot 1 (fn (a b) (sub b a)))", "(tuple (f64 1 3))"},
      {"(scan :sequences (u) :nit-sot 1 (fn (r) (sum r)))", "(tuple (f64 ?))"},
      {"(scan :n-steps 4 :sequences (u) :nit-sot 1 (fn (r) (sum r)))", "(tuple (f64 4))"},
      {"(scan :n-steps n :sit-sot (s) (fn (h) (mul h 2)))", "(tuple (f64 ?))"},
      {"(scan :n-steps 5 :mit-sot ((m :taps (-2 -1))) (fn (a b) (add a b)))", "(tuple (f64 5 3))"},
      {"(scan :n-steps 5 :sit-sot (s) :until true (fn (h) (mul h 2) (gt h 9)))", "(tuple (f64 ?))"},
      {"(scan :n-steps 5 :sit-sot (s) :nit-sot 1 :keep (2 all) (fn (h) (mul h 2) h))",
       "(tuple (f64 2) (f64 5))"},
  });
}
