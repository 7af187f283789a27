// Gradient expansion: reverse-mode gradients of random graphs over the
// differentiable ops agree with central finite differences on the
// executor; the optimize pipeline leaves no `grad`; gradients of stabilized
// forms are finite where the eager ones overflow; Hessian-vector products
// (a grad of a grad) agree with finite differences of the gradient; a grad
// that cannot be expanded is refused and counted.
#include "rules/autodiff/gradient.hpp"
#include "rules/autodiff/pullback.hpp"

#include "tests/rules/gradient_check.hpp"

#include <cmath>
#include <random>
#include <string>

using namespace eqsat;
using namespace eqsat::rules;
using namespace eqsat::testing;
using eqsat::test::check_close;
using eqsat::test::finite_difference;
using eqsat::test::random_array;

namespace {

// A random expression of shape (3 4) over inputs x (3 4), y (4), z (3 1),
// w (4 4), v (4), each op's operands kept in the domain where it is smooth
// and bounded.
std::string random_expr(std::mt19937_64& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  if (depth == 0) {
    static const char* leaves[] = {"x", "(mul x y)", "(add x z)", "(sin x)", "(sub z x)"};
    return leaves[pick(5)];
  }
  const std::string a = random_expr(rng, depth - 1);
  auto b = [&] { return random_expr(rng, depth - 1); };
  auto pos = [](const std::string& e) { return "(add (square " + e + ") 1.0)"; };
  switch (pick(40)) {
    case 0:
      return "(neg " + a + ")";
    case 1:
      return "(abs " + a + ")";
    case 2:
      return "(square " + a + ")";
    case 3:
      return "(exp (tanh " + a + "))";
    case 4:
      return "(expm1 (tanh " + a + "))";
    case 5:
      return "(log " + pos(a) + ")";
    case 6:
      return "(log1p (square " + a + "))";
    case 7:
      return "(sqrt " + pos(a) + ")";
    case 8:
      return "(reciprocal " + pos(a) + ")";
    case 9:
      return "(sin " + a + ")";
    case 10:
      return "(cos " + a + ")";
    case 11:
      return "(tanh " + a + ")";
    case 12:
      return "(sigmoid " + a + ")";
    case 13:
      return "(softplus " + a + ")";
    case 14:
      return "(add " + a + " " + b() + ")";
    case 15:
      return "(sub " + a + " y)";
    case 16:
      return "(mul " + a + " " + b() + ")";
    case 17:
      return "(div " + a + " " + pos(b()) + ")";
    case 18:
      return "(pow " + pos(a) + " (tanh " + b() + "))";
    case 19:
      return "(maximum " + a + " " + b() + ")";
    case 20:
      return "(minimum " + a + " z)";
    case 21:
      return "(where (gt " + a + " 0.0) " + a + " (mul " + b() + " y))";
    case 22:
      return "(add " + a + " (sum " + b() + " :axis 0 :keepdims true))";
    case 23:
      return "(mul " + a + " (expand_dims (mean " + b() + " :axis 1) :axis 1))";
    case 24:
      return "(sub " + a + " (max " + a + " :axis 1 :keepdims true))";
    case 25:
      return "(add " + a + " (min " + b() + " :axis (0 1) :keepdims true))";
    case 26:
      return "(sub " + a + " (logsumexp " + a + " :axis 0 :keepdims true))";
    case 27:
      return "(mul " + a + " (prod (tanh " + b() + ") :axis 1 :keepdims true))";
    case 28:
      return "(softmax " + a + " :axis 1)";
    case 29:
      return "(log_softmax " + a + " :axis 0)";
    case 30:
      return "(dot " + a + " w)";
    case 31:
      return "(mul " + a + " (expand_dims (dot " + b() + " v) :axis 1))";
    case 32:
      return "(add " + a + " (expand_dims (dot v (transpose " + b() + ")) :axis 1))";
    case 33:
      return "(reshape (transpose (reshape " + a + " :shape (4 3))) :shape (3 4))";
    case 34:
      return "(flip (squeeze (expand_dims " + a + " :axis 0) :axis 0) :axis 1)";
    case 35:
      return "(broadcast_to (sum " + a + " :axis 0 :keepdims true) :shape (3 4))";
    case 36:
      return "(concat (slice " + a + " :axis 0 :stop 1) (slice " + b() +
             " :axis 0 :start 1) :axis 0)";
    case 37:
      return "(index (stack " + a + " " + b() + " :axis 0) 1)";
    case 38:
      return "(inc_index (set_index " + a + " 0 (index " + b() + " 2)) -1 (cos (index " + a +
             " 1)))";
    default:
      return "(inc_slice (set_slice " + a + " (sin (slice " + b() +
             " :axis 1 :stop 2)) :axis 1 :stop 2) y :axis 0 :step 2)";
  }
}

const char* kInputs =
    "(input x (f64 3 4)) (input y (f64 4)) (input z (f64 3 1)) (input w (f64 4 4))"
    " (input v (f64 4)) (input t (f64 3 4))\n";

// `g` (one input x) outputs d/dx of sum(x sin x) elementwise: optimized, no
// grad is left and each element is x cos x + sin x.
void check_derivative_of_x_sin_x(const ops::Graph& g, std::uint64_t seed) {
  const ops::Graph opt = optimize(g, shipped_rules());
  REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
  std::mt19937_64 rng(seed);
  const ops::Array x = random_array(g.inputs[0]->tensor_type(), rng);
  const ops::Array d = backend::compile(opt).run({x})[0];
  for (std::int64_t i = 0; i < x.size(); ++i)
    CHECK(d.element(i) == Approx(std::cos(x.element(i)) * x.element(i) + std::sin(x.element(i))));
}

}  // namespace

TEST_CASE("gradients of random graphs match finite differences", "[grad]") {
  const char* names[] = {"x", "y", "z", "w", "v"};
  for (std::uint64_t seed = 0; seed < 120; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string e = random_expr(rng, 1 + static_cast<int>(seed % 3));
    const int wrt = static_cast<int>(rng() % 5);
    const std::string cost = "(sum (mul t " + e + "))";
    const ops::Graph cost_graph = graph(std::string(kInputs) + "(output " + cost + ")");
    ops::Graph grad_graph = cost_graph;
    grad_graph.outputs = {{"d", gradient(cost_graph.outputs[0].term, cost_graph.inputs[wrt])}};
    INFO("seed " << seed << " cost " << cost << " wrt " << names[wrt]);
    INFO("gradient:\n" << ops::print_graph(grad_graph));
    std::vector<ops::Array> inputs;
    for (ops::TermRef in : cost_graph.inputs)
      inputs.push_back(random_array(in->tensor_type(), rng));
    const ops::Array actual = backend::compile(grad_graph).run(inputs)[0];
    check_close(finite_difference(cost_graph, inputs, wrt), actual, 1e-5);
  }
}

TEST_CASE("the optimize pipeline expands every grad, and its gradients are right", "[grad]") {
  for (std::uint64_t seed = 1000; seed < 1012; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string cost = "(sum (mul t " + random_expr(rng, 2) + "))";
    const int wrt = static_cast<int>(rng() % 3);
    const char* names[] = {"x", "y", "z"};
    const ops::Graph cost_graph = graph(std::string(kInputs) + "(output " + cost + ")");
    const ops::Graph g =
        graph(std::string(kInputs) + "(output (grad " + cost + " " + names[wrt] + "))");
    OptimizeReport report;
    const ops::Graph opt = optimize(g, shipped_rules(), &report);
    INFO("seed " << seed << "\n" << ops::print_graph(opt));
    REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
    std::vector<ops::Array> inputs;
    for (ops::TermRef in : g.inputs) inputs.push_back(random_array(in->tensor_type(), rng));
    check_close(finite_difference(cost_graph, inputs, wrt), backend::compile(opt).run(inputs)[0],
                1e-5);
  }
}

TEST_CASE("the gradient of log(softmax x) is the stable formula, finite at 1000", "[grad]") {
  const ops::Graph g = graph(
      "(input x (f64 2 5)) (input t (f64 2 5))\n"
      "(output (grad (neg (sum (mul t (log (softmax x :axis -1))))) x))");
  const ops::Graph opt = optimize(g, shipped_rules());
  REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
  std::mt19937_64 rng(7);
  for (double scale : {1.0, 1000.0, -1000.0}) {
    std::vector<ops::Array> inputs;
    for (ops::TermRef in : g.inputs) inputs.push_back(random_array(in->tensor_type(), rng));
    for (std::int64_t i = 0; i < 10; ++i) inputs[0].data<double>()[i] *= scale;
    const ops::Array d = backend::compile(opt).run(inputs)[0];
    // d = -t + softmax(x) * sum(t) per row, softmax computed stably here.
    for (int r = 0; r < 2; ++r) {
      double m = -INFINITY, z = 0, st = 0;
      for (int c = 0; c < 5; ++c) m = std::max(m, inputs[0].element(r * 5 + c));
      for (int c = 0; c < 5; ++c) {
        z += std::exp(inputs[0].element(r * 5 + c) - m);
        st += inputs[1].element(r * 5 + c);
      }
      for (int c = 0; c < 5; ++c) {
        const double p = std::exp(inputs[0].element(r * 5 + c) - m) / z;
        const double want = -inputs[1].element(r * 5 + c) + p * st;
        INFO("scale " << scale << " row " << r << " col " << c);
        REQUIRE(std::isfinite(d.element(r * 5 + c)));
        CHECK(d.element(r * 5 + c) == Approx(want).margin(1e-12));
      }
    }
  }
}

TEST_CASE("grad of a cost that does not use wrt is zeros", "[grad]") {
  const ops::Graph g =
      graph("(input x (f64 3 2)) (input y (f64 4))\n(output (grad (sum (exp y)) x))");
  const ops::Graph opt = optimize(g, shipped_rules());
  REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
  REQUIRE(opt.outputs[0].term->tensor_type() == g.inputs[0]->tensor_type());
  std::mt19937_64 rng(3);
  const ops::Array d =
      backend::compile(opt).run({random_array(g.inputs[0]->tensor_type(), rng),
                                 random_array(g.inputs[1]->tensor_type(), rng)})[0];
  for (std::int64_t i = 0; i < d.size(); ++i) CHECK(d.element(i) == 0.0);
}

TEST_CASE("a gradient not reading the failing part of its cost still fails where the cost does",
          "[grad]") {
  // d(sum x + y[k])/dx is 1 everywhere, but the cost fails for k out of
  // range: the optimized gradient must fail there too (issue 25).
  const ops::Graph g = graph(
      "(input x (f64 3)) (input y (f64 3)) (input k i64)\n"
      "(output (grad (add (sum x) (index y k)) x))");
  const ops::Graph opt = optimize(g, shipped_rules());
  INFO(ops::print_graph(opt));
  REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
  const ops::Array x = ops::Array::filled(ops::DType::F64, {3}, 0.5);
  auto program = backend::compile(opt);
  CHECK_THROWS_WITH(program.run({x, x, ops::Array::scalar(ops::DType::I64, 7)}),
                    Catch::Contains("index 7 is out of range"));
  const ops::Array d = program.run({x, x, ops::Array::scalar(ops::DType::I64, -1)})[0];
  for (std::int64_t i = 0; i < d.size(); ++i) CHECK(d.element(i) == 1.0);
}

TEST_CASE("grad inside a def body differentiates with respect to its parameter", "[grad]") {
  const ops::Graph g = graph(
      "(input x (f64 3))\n"
      "(def f (fn ((p (f64 3))) (grad (sum (mul (sin p) p)) p)))\n"
      "(output (call f x))");
  check_derivative_of_x_sin_x(g, 5);
}

TEST_CASE("grad through a call is expanded through its pullback def", "[grad]") {
  const ops::Graph g = graph(
      "(input x (f64 3))\n"
      "(def f (fn ((p (f64 3))) (mul p p) (exp p)))\n"
      "(output (grad (sum (add (get 0 (call f x)) (get 1 (call f x)))) x))");
  const ops::TermRef d = gradient(g.outputs[0].term->operand(0), g.inputs[0]);
  ops::Graph dg = g;
  dg.outputs = {{"d", d}};
  std::mt19937_64 rng(9);
  const ops::Array x = random_array(g.inputs[0]->tensor_type(), rng);
  const ops::Array out = backend::compile(dg).run({x})[0];
  for (std::int64_t i = 0; i < 3; ++i)
    CHECK(out.element(i) == Approx(2 * x.element(i) + std::exp(x.element(i))));
}

TEST_CASE("gradients through scans (a reverse scan) match finite differences", "[grad]") {
  const std::string in =
      "(input x (f64 5 3)) (input h0 (f64 3)) (input a (f64 3)) (input t (f64 5 3))\n";
  const char* costs[] = {
      "|(sum (get 0 (scan :sequences (x) :sit-sot (0.0) (fn (xt acc) (add acc (sum (square "
      "xt)))))))",
      "(let s (scan :sequences (x) :sit-sot (h0) :nit-sot 1 :non-sequences (a)"
      " (fn (xt h a_) (tanh (add (mul h a_) xt)) (mul (sin h) xt))))"
      "|(sum (add (mul t (get 0 s)) (square (get 1 s))))",
      "(let s (scan :n-steps 5 :sit-sot (h0) :non-sequences (a) (fn (h a_) (mul (cos h) a_))))"
      "|(sum (mul (index t 2) (index (get 0 s) -1)))",
      "(let s (scan :sequences (x) :nit-sot 1 :non-sequences (a) (fn (xt a_) (dot xt (mul a_ "
      "a_)))))"
      "|(sum (exp (get 0 s)))",
      "(let s (scan :sequences ((x :taps (0 2))) :sit-sot (h0) :non-sequences (a)"
      " (fn (x0 x2 h a_) (add (mul h (tanh (mul x2 a_))) x0))))"
      "|(sum (mul (slice t :stop 3) (get 0 s)))",
      "(let s (scan :n-steps 3 :sequences (x (t :taps (0 1))) :sit-sot (h0) :nit-sot 1"
      " (fn (xt t0 t1 h) (mul h (cos xt)) (mul (sin xt) (sub t1 (mul t0 h))))))"
      "|(sum (add (get 1 s) (get 0 s)))",
      "(let s (scan :n-steps 5 :mit-sot (((slice x :stop 2) :taps (-2 -1))) :non-sequences (a)"
      " (fn (hm2 hm1 a_) (add (mul (sin hm2) a_) (tanh hm1)))))"
      "|(sum (mul t (get 0 s)))",
      "(let s (scan :sequences (x) :mit-sot (((stack h0 a h0 :axis 0) :taps (-3 -1))) :sit-sot (h0)"
      " :nit-sot 1 (fn (xt hm3 hm1 c) (add (mul hm3 (cos xt)) (mul (tanh hm1) c)) (sin (mul c xt))"
      " (mul hm1 hm3))))"
      "|(sum (add (mul t (get 0 s)) (add (square (get 1 s)) (get 2 s))))",
      "(let s (scan :sequences (x) :sit-sot (h0) :nit-sot 1 :keep (2 all)"
      " (fn (xt h) (mul (sin h) (add xt 1.0)) (mul h xt))))"
      "|(add (sum (square (get 0 s))) (sum (mul t (get 1 s))))",
      "(let s (scan :sequences (x (arange 5 :dtype i64)) :sit-sot (h0 0)"
      " (fn (xt i h c) (mul h (add (cos xt) (cast (add i c) :dtype f64))) (add c 1))))"
      "|(sum (mul t (get 0 s)))"};
  std::mt19937_64 rng(21);
  for (const char* c : costs) {
    const std::string text(c);
    const auto split = text.find('|');
    const std::string lets = text.substr(0, split), cost = text.substr(split + 1);
    for (int wrt = 0; wrt < 3; ++wrt) {
      const ops::Graph cost_graph = graph(in + lets + "(output " + cost + ")");
      ops::Graph grad_graph = cost_graph;
      grad_graph.outputs = {{"d", gradient(cost_graph.outputs[0].term, cost_graph.inputs[wrt])}};
      INFO(text << " wrt " << wrt << "\n" << ops::print_graph(grad_graph));
      std::vector<ops::Array> inputs;
      for (ops::TermRef i : cost_graph.inputs)
        inputs.push_back(random_array(i->tensor_type(), rng));
      check_close(finite_difference(cost_graph, inputs, wrt),
                  backend::compile(grad_graph).run(inputs)[0], 1e-5);
      const ops::Graph opt = optimize(graph(in + lets + "(output (grad " + cost + " " + "xha"[wrt] +
                                            (wrt == 1 ? "0" : "") + "))"),
                                      shipped_rules());
      REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
      check_close(finite_difference(cost_graph, inputs, wrt), backend::compile(opt).run(inputs)[0],
                  1e-5);
    }
  }
}

TEST_CASE("a grad that cannot be expanded is refused at the grad, not left in the graph",
          "[grad]") {
  // Reshaping the cotangent back needs at most one unknown dimension.
  const ops::Graph g =
      graph("(input x (f64 ? ?))\n(output (grad (sum (square (reshape x :shape (-1)))) x))");
  CHECK_THROWS_WITH(gradient(g.outputs[0].term->operand(0), g.inputs[0]),
                    Catch::StartsWith("grad: cannot reshape a cotangent back"));
  CHECK_THROWS_WITH(optimize(g, shipped_rules()),
                    "t.eg:2:9: error: grad with respect to x cannot be expanded: cannot reshape a "
                    "cotangent back to shape (? ?) with several unknown dimensions");
  // A grad waiting on it is refused too, each at its own position.
  const ops::Graph nested = graph(
      "(input x (f64 ? ?))\n"
      "(output (grad (sum (mul x (grad (sum (square (reshape x :shape (-1)))) x))) x))");
  CHECK_THROWS_WITH(
      optimize(nested, shipped_rules()),
      Catch::Contains("t.eg:2:9: error: grad with respect to x cannot be expanded: its "
                      "cost holds a grad that cannot be expanded") &&
          Catch::Contains(
              "t.eg:2:27: error: grad with respect to x cannot be expanded: cannot reshape"));
}

TEST_CASE("concat of operands of unknown length differentiates at run-time offsets", "[grad]") {
  const std::string head = "(input x (f64 ? 2)) (input y (f64 ? 2)) (input z (f64 2 ?))\n";
  const std::string cost =
      "(add (sum (sin (mul (concat x y x :axis 0) 1.5))) (sum (square (concat z z :axis 1))))";
  const ops::Graph c = graph(head + "(output " + cost + ")");
  std::mt19937_64 rng(5);
  for (std::int64_t rows : {0, 1, 3}) {
    std::vector<ops::Array> in{random_array({ops::DType::F64, {rows, 2}}, rng),
                               random_array({ops::DType::F64, {rows + 2, 2}}, rng),
                               random_array({ops::DType::F64, {2, rows + 1}}, rng)};
    for (const char* w : {"x", "y", "z"}) {
      INFO("rows " << rows << " wrt " << w);
      const ops::Graph opt =
          optimize(graph(head + "(output (grad " + cost + " " + w + "))"), shipped_rules());
      REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
      check_close(finite_difference(c, in, w[0] - 'x'), backend::compile(opt).run(in)[0], 1e-6);
    }
  }
}

TEST_CASE("Hessian-vector products of random graphs match finite differences", "[grad][higher]") {
  const char* names[] = {"x", "y", "z", "w", "v"};
  for (std::uint64_t seed = 200; seed < 260; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string e = random_expr(rng, 1 + static_cast<int>(seed % 2));
    const int wrt = static_cast<int>(rng() % 5);
    // Kinks (abs, maximum, where, max) make finite differences of the
    // gradient jump: only smooth expressions.
    if (e.find("abs") != std::string::npos || e.find("max") != std::string::npos ||
        e.find("min") != std::string::npos || e.find("where") != std::string::npos)
      continue;
    const std::string cost = "(sum (mul t " + e + "))";
    // <u, grad cost> with u a fixed random direction of wrt's type: its
    // gradient is the Hessian of cost times u.
    const std::string dir = std::string("(input u ") +
                            (wrt == 0   ? "(f64 3 4)"
                             : wrt == 1 ? "(f64 4)"
                             : wrt == 2 ? "(f64 3 1)"
                             : wrt == 3 ? "(f64 4 4)"
                                        : "(f64 4)") +
                            ")\n";
    const ops::Graph c = graph(std::string(kInputs) + dir + "(output " + cost + ")");
    const ops::TermRef g1 = gradient(c.outputs[0].term, c.inputs[wrt]);
    ops::Graph first = c;
    first.outputs = {
        {"d", ops::Term::make(ops::OpKind::Sum, {},
                              {ops::Term::make(ops::OpKind::Mul, {}, {c.inputs.back(), g1})})}};
    ops::Graph second = c;
    second.outputs = {{"h", gradient(first.outputs[0].term, c.inputs[wrt])}};
    INFO("seed " << seed << " cost " << cost << " wrt " << names[wrt]);
    std::vector<ops::Array> inputs;
    for (ops::TermRef in : c.inputs) inputs.push_back(random_array(in->tensor_type(), rng));
    const ops::Array fd = finite_difference(first, inputs, wrt);
    check_close(fd, backend::compile(second).run(inputs)[0], 1e-4);
    if (seed % 10 == 0) {
      const ops::Graph opt =
          optimize(graph(std::string(kInputs) + dir + "(output (grad (sum (mul u (grad " + cost +
                         " " + names[wrt] + "))) " + names[wrt] + "))"),
                   shipped_rules());
      REQUIRE_FALSE(contains(opt.outputs[0].term, ops::OpKind::Grad));
      check_close(fd, backend::compile(opt).run(inputs)[0], 1e-4);
    }
  }
}

TEST_CASE("example 03 optimizes to a graph without grad whose gradient is right", "[grad]") {
  const std::string path = std::string(EQSAT_RULES_DIR) + "/../examples/03_log_softmax_grad.eg";
  const ops::Graph g = ops::parse_graph_file(path);
  const ops::Graph opt = optimize(g, shipped_rules());
  for (const auto& o : opt.outputs) REQUIRE_FALSE(contains(o.term, ops::OpKind::Grad));
  ops::Graph loss = g;
  loss.outputs = {g.outputs[0]};
  std::mt19937_64 rng(11);
  std::vector<ops::Array> inputs;
  for (ops::TermRef in : g.inputs) inputs.push_back(random_array(in->tensor_type(), rng));
  const auto out = backend::compile(opt).run(inputs);
  check_close(finite_difference(loss, inputs, 0), out[1], 1e-5);
}

TEST_CASE("grad inside a scan body differentiates with respect to the step's parameter", "[grad]") {
  const ops::Graph g = graph(
      "(input x (f64 4 3))\n"
      "(output (get 0 (scan :sequences (x) :nit-sot 1 (fn (xt) (grad (sum (mul (sin xt) xt)) "
      "xt)))))");
  check_derivative_of_x_sin_x(g, 13);
}

TEST_CASE("gradients over unknown dimensions match finite differences", "[grad]") {
  const std::string in = "(input x (f64 ? 3)) (input t (f64 ? 3))\n";
  const std::string cost =
      "(sum (mul (mean (exp (tanh x)) :axis 0) (sum (mul t (log_softmax x :axis 1)) :axis 0)))";
  const ops::Graph cost_graph = graph(in + "(output " + cost + ")");
  ops::Graph grad_graph = cost_graph;
  grad_graph.outputs = {{"d", gradient(cost_graph.outputs[0].term, cost_graph.inputs[0])}};
  std::mt19937_64 rng(17);
  std::vector<ops::Array> inputs;
  for (int k = 0; k < 2; ++k) inputs.push_back(random_array({ops::DType::F64, {4, 3}}, rng));
  check_close(finite_difference(cost_graph, inputs, 0), backend::compile(grad_graph).run(inputs)[0],
              1e-5);
}
