// Gradients through loops (rules/autodiff/scan_pullback.cpp): :until loops stopping
// at different steps, second derivatives through :until and mit-sot loops,
// the reverse loop's own shape (only the slots it reads, no whole-array
// slices), and what the optimizer leaves of it.
#include "tests/rules/gradient_check.hpp"

#include "rules/autodiff/gradient.hpp"

#include "ops/graph_printer.hpp"

#include <set>

using namespace eqsat;
using namespace eqsat::test;
using rules::gradient;

namespace {

// An :until loop over a sequence, an :until loop with :n-steps over a
// mit-sot, and one over a sit-sot; LIMIT sets where each stops.
struct UntilCase {
  std::string inputs, lets, cost, wrts;
};

std::vector<UntilCase> until_cases(double limit) {
  const std::string l = std::to_string(limit);
  return {
      {"(input x (f64 7)) (input a f64)\n",
       "(let s (scan :sequences (x) :sit-sot (0.0) :non-sequences (a) :until true"
       " (fn (xt acc a_) (let n (add acc (mul a_ (square xt)))) n (gt n (mul a_ " +
           l + ")))))\n",
       "(sum (sin (get 0 s)))", "xa"},
      {"(input h (f64 2 3)) (input a (f64 3))\n",
       "(let s (scan :n-steps 9 :mit-sot ((h :taps (-2 -1))) :non-sequences (a) :until true"
       " (fn (hm2 hm1 a_) (let n (add (mul (sin hm2) a_) (add (tanh hm1) 0.5))) n"
       " (gt (sum n) " +
           l + "))))\n",
       "(sum (square (get 0 s)))", "ha"},
      {"(input h (f64 3)) (input a (f64 3)) (input x (f64 9 3))\n",
       "(let s (scan :sequences (x) :sit-sot (h) :nit-sot 1 :non-sequences (a) :until true"
       " (fn (xt hp a_) (let n (add (tanh (mul hp a_)) (square xt))) n (mul n xt)"
       " (gt (sum n) " +
           l + "))))\n",
       "(add (sum (get 0 s)) (sum (sin (get 1 s))))", "hax"},
  };
}

std::int64_t steps_run(const ops::Graph& g, const std::vector<ops::Array>& inputs) {
  ops::Graph probe = g;
  const ops::TermRef s = g.outputs[0].term;
  ops::TermRef scan = nullptr;
  for_each_term(s, [&](ops::TermRef t) {
    if (t->kind() == ops::OpKind::Scan) scan = t;
  });
  REQUIRE(scan);
  probe.outputs = {{"s", ops::Term::make(ops::OpKind::Get, {{ops::AttrKey::Index, 0}}, {scan})}};
  return run1(probe, inputs).shape()[0];
}

std::size_t input_index(const ops::Graph& g, char name) {
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    if (g.inputs[i]->attrs().get<std::string>(ops::AttrKey::Name) == std::string(1, name)) return i;
  FAIL("no input " << name);
  return 0;
}

// h <- sqrt(h - 1) from x for three steps: real for the first step at
// x = (1.5 2.5 3.5), NaN after it (the loop of the zero-mask tests).
const std::string kSqrtLoop =
    "(input x (f64 3))\n"
    "(let s (scan :n-steps 3 :sit-sot (x) (fn (h) (sqrt (sub h 1.0)))))\n";

// COST over the graph of HEAD, at `at`: its finite differences with
// respect to input 0 (within 1e-6), its gradient and the optimized `grad`
// (within `tol`) all give `want`. Returns the gradient's term.
ops::TermRef check_gradient_of_input0(const std::string& head, const std::string& cost,
                                      const std::vector<ops::Array>& at, const ops::Array& want,
                                      double tol) {
  const ops::Graph g = graph(head + "(output " + cost + ")");
  check_close(want, finite_difference(g, at, 0), 1e-6);
  const ops::TermRef d = gradient(g.outputs[0].term, g.inputs[0]);
  check_close(want, run1(with_output(g, d), at), tol);
  const ops::Graph opt = rules::optimize(
      with_output(g, ops::Term::make(ops::OpKind::Grad, {}, {g.outputs[0].term, g.inputs[0]})),
      shipped_rules());
  check_close(want, run1(opt, at), tol);
  return d;
}

// A cost over that loop reading only its first step: finite differences,
// the gradient and the optimized gradient all give d sqrt(x - 1)/dx.
// Returns the gradient's term.
ops::TermRef check_first_step_gradient(const std::string& cost) {
  std::vector<ops::Array> in{ops::Array(ops::DType::F64, {3})};
  for (std::int64_t i = 0; i < 3; ++i) in[0].data<double>()[i] = 1.5 + static_cast<double>(i);
  ops::Array want(ops::DType::F64, {3});
  for (std::int64_t i = 0; i < 3; ++i)
    want.data<double>()[i] = 0.5 / std::sqrt(in[0].element(i) - 1.0);
  return check_gradient_of_input0(kSqrtLoop, cost, in, want, 1e-12);
}

}  // namespace

TEST_CASE("gradients through until-loops stopping at different steps match finite differences",
          "[grad][until]") {
  std::mt19937_64 rng(1);
  for (std::size_t c = 0; c < until_cases(0).size(); ++c) {
    std::set<std::int64_t> stops;
    std::vector<ops::Array> inputs;  // the same for every limit
    for (double limit : {0.1, 0.3, 0.8, 1.5, 3.0, 4.5, 6.0, 9.0, 1e9}) {
      const UntilCase uc = until_cases(limit)[c];
      const ops::Graph cost = graph(uc.inputs + uc.lets + "(output " + uc.cost + ")");
      if (inputs.empty())
        for (ops::TermRef in : cost.inputs)
          inputs.push_back(random_array(in->tensor_type(), rng, 0.2, 1.2));
      stops.insert(steps_run(cost, inputs));
      for (char w : uc.wrts) {
        const std::size_t wi = input_index(cost, w);
        const ops::Array fd = finite_difference(cost, inputs, wi);
        const ops::Graph direct =
            with_output(cost, gradient(cost.outputs[0].term, cost.inputs[wi]));
        INFO("case " << c << " limit " << limit << " wrt " << w << "\n"
                     << ops::print_graph(direct));
        check_close(fd, run1(direct, inputs), 1e-5);
        const ops::Graph opt = rules::optimize(
            graph(uc.inputs + uc.lets + "(output (grad " + uc.cost + " " + w + "))"),
            shipped_rules());
        REQUIRE_FALSE(has_grad(opt.outputs[0].term));
        check_close(fd, run1(opt, inputs), 1e-5);
      }
    }
    std::string seen;
    for (auto n : stops) seen.append(1, ' ').append(std::to_string(n));
    INFO("case " << c << " stopped after" << seen);
    CHECK(stops.size() >= 3);
  }
}

TEST_CASE("second derivatives through an until-loop and a mit-sot loop match finite differences",
          "[grad][until][higher]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(input h (f64 2 3)) (input a (f64 3)) (input v (f64 2 3))\n"
       "(let s (scan :n-steps 9 :mit-sot ((h :taps (-2 -1))) :non-sequences (a) :until true"
       " (fn (hm2 hm1 a_) (let n (add (mul (sin hm2) a_) (add (tanh hm1) 0.5))) n"
       " (gt (sum n) 4.0))))\n",
       "(sum (square (get 0 s)))"},
      {"(input h (f64 2 3)) (input a (f64 3)) (input v (f64 2 3))\n"
       "(let s (scan :n-steps 5 :mit-sot ((h :taps (-2 -1))) :non-sequences (a)"
       " (fn (hm2 hm1 a_) (add (mul (sin hm2) a_) (tanh (mul hm1 hm2))))))\n",
       "(sum (mul (get 0 s) (get 0 s)))"},
      {"(input x (f64 7)) (input a f64) (input v (f64 7))\n"
       "(let s (scan :sequences (x) :sit-sot (0.0) :non-sequences (a) :until true"
       " (fn (xt acc a_) (let n (add acc (mul a_ (square xt)))) n (gt n 2.0))))\n",
       "(sum (sin (get 0 s)))"},
  };
  std::mt19937_64 rng(2);
  for (const auto& [head, c] : cases) {
    const ops::Graph cost = graph(head + "(output " + c + ")");
    const std::size_t wx = 0, wv = cost.inputs.size() - 1;
    std::vector<ops::Array> inputs;
    for (ops::TermRef in : cost.inputs)
      inputs.push_back(random_array(in->tensor_type(), rng, 0.2, 1.2));
    // The Hessian-vector product H v as the gradient of <v, grad c>.
    const ops::TermRef g1 = gradient(cost.outputs[0].term, cost.inputs[wx]);
    const ops::TermRef inner = ops::Term::make(
        ops::OpKind::Sum, {}, {ops::Term::make(ops::OpKind::Mul, {}, {cost.inputs[wv], g1})});
    const ops::Graph first = with_output(cost, inner);
    const ops::Array fd = finite_difference(first, inputs, wx);
    const ops::TermRef g2 = gradient(inner, cost.inputs[wx]);
    INFO(head << c);
    CHECK(count_ops(g2, ops::OpKind::Scan) > count_ops(g1, ops::OpKind::Scan));
    check_close(fd, run1(with_output(cost, g2), inputs), 1e-5);
    const std::string wname = head.substr(7, 1);
    const ops::Graph opt = rules::optimize(
        graph(head + "(output (grad (sum (mul v (grad " + c + " " + wname + "))) " + wname + "))"),
        shipped_rules());
    REQUIRE_FALSE(has_grad(opt.outputs[0].term));
    check_close(fd, run1(opt, inputs), 1e-5);
  }
}

TEST_CASE("the reverse loop reads every slot it has and slices no whole array", "[grad][clean]") {
  const std::string head =
      "(input x (f64 6 3)) (input h (f64 3)) (input a (f64 3)) (input k (i64 6))\n"
      "(let s (scan :sequences (x k) :sit-sot (h 0) :nit-sot 1 :non-sequences (a (mul a 2.0))"
      " (fn (xt kt hp c a_ b_) (add (mul hp a_) (cast (add kt c) :dtype f64)) (add c 1)"
      " (mul xt b_))))\n";
  const ops::Graph g = graph(head + "(output (add (sum (get 0 s)) (sum (index (get 2 s) 0))))");
  for (std::size_t w = 0; w < 3; ++w) {
    const ops::TermRef d = gradient(g.outputs[0].term, g.inputs[w]);
    INFO(ops::print_graph(with_output(g, d)));
    for_each_term(d, [&](ops::TermRef t) {
      if (t->kind() == ops::OpKind::Scan) {
        const ops::TermRef fn = t->operand(0);
        std::set<std::int64_t> read;
        for (ops::TermRef o : fn->operands())
          for (auto slot : o->free_nominals()) read.insert(slot);
        const auto& params = fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
        const auto& spec = t->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
        // Sit-sot parameters may go unread (a state overwritten each step);
        // sequences and non-sequences may not.
        const auto nseq = static_cast<std::int64_t>(spec.sequence_taps.size());
        for (std::int64_t p = 0; p < static_cast<std::int64_t>(params.size()); ++p)
          if (p < nseq || p >= nseq + spec.num_sitsot) CHECK(read.contains(p));
      }
      if (t->kind() == ops::OpKind::Slice || t->kind() == ops::OpKind::IncSlice) {
        const ops::Attrs& at = t->attrs();
        const bool from0 = at.get_or<std::int64_t>(ops::AttrKey::Start, 0) == 0;
        const bool to_end =
            !at.has(ops::AttrKey::Stop) ||
            at.get<std::int64_t>(ops::AttrKey::Stop) == t->operand(0)->tensor_type().dims[0];
        CHECK_FALSE((from0 && to_end && !at.has(ops::AttrKey::Step)));
      }
    });
  }
}

TEST_CASE("after optimization the reverse loop keeps one step of its accumulators",
          "[grad][clean]") {
  // The reverse loop is built clean; the optimizer must keep it so (and
  // clean the forward loop: only its last state is read).
  const ops::Graph g = graph(
      "(input x (f64 100 4)) (input h (f64 4)) (input a (f64 4))\n"
      "(let s (scan :sequences (x) :sit-sot (h) :non-sequences (a)"
      " (fn (xt hp a_) (tanh (add (mul hp a_) xt)))))\n"
      "(output (grad (sum (index (get 0 s) -1)) a))");
  const ops::Graph opt = rules::optimize(g, shipped_rules());
  REQUIRE_FALSE(has_grad(opt.outputs[0].term));
  std::size_t loops = 0;
  for_each_term(opt.outputs[0].term, [&](ops::TermRef t) {
    if (t->kind() != ops::OpKind::Scan) return;
    ++loops;
    const auto& spec = t->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
    const ops::TermRef fn = t->operand(0);
    std::set<std::int64_t> read;
    for (ops::TermRef o : fn->operands())
      for (auto slot : o->free_nominals()) read.insert(slot);
    const auto nseq = static_cast<std::int64_t>(spec.sequence_taps.size());
    const auto nparams = static_cast<std::int64_t>(
        fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params).size());
    for (std::int64_t p = 0; p < nparams; ++p)
      if (p < nseq || p >= nseq + spec.num_sitsot) CHECK(read.contains(p));
    // The reverse loop (no nit-sot here): every carried output keeps one step.
    if (spec.num_nitsot == 0 && spec.sequence_taps.size() >= 2) {
      REQUIRE(spec.keep.size() == static_cast<std::size_t>(spec.num_sitsot));
      for (auto k : spec.keep) CHECK(k == 1);
    }
  });
  CHECK(loops == 2);
}

TEST_CASE("checkpointed gradients equal the taped ones and finite differences",
          "[grad][checkpoint]") {
  const std::string in =
      "(input x (f64 12 3)) (input h (f64 2 3)) (input a (f64 3)) (input t (f64 12 3))\n";
  const char* lets[] = {
      "(let s (scan :sequences (x) :sit-sot ((index h 0)) :nit-sot 1 :non-sequences (a)"
      " (fn (xt hp a_) (tanh (add (mul hp a_) xt)) (mul (sin hp) xt))))\n",
      "(let s (scan :sequences ((x :taps (0 1))) :mit-sot ((h :taps (-2 -1))) :non-sequences (a)"
      " :n-steps 10 (fn (x0 x1 hm2 hm1 a_) (add (mul (sin hm2) a_) (tanh (add hm1 (mul x0 "
      "x1)))))))\n",
      "(let s (scan :n-steps 12 :sit-sot ((index h 1)) :non-sequences (a) :keep (1)"
      " (fn (hp a_) (tanh (add (mul hp a_) 0.3)))))\n",
  };
  const char* costs[] = {"(add (sum (mul (slice t :stop 12) (get 0 s))) (sum (get 1 s)))",
                         "(sum (mul (slice t :stop 10) (get 0 s)))", "(sum (index (get 0 s) -1))"};
  std::mt19937_64 rng(8);
  for (std::size_t c = 0; c < 3; ++c) {
    const ops::Graph cost = graph(in + lets[c] + "(output " + costs[c] + ")");
    const auto inputs = random_inputs(cost, rng);
    for (std::size_t w = 0; w < 3; ++w) {
      const ops::TermRef taped = gradient(cost.outputs[0].term, cost.inputs[w]);
      const ops::Array want = run1(with_output(cost, taped), inputs);
      check_close(finite_difference(cost, inputs, w), want, 1e-5);
      for (std::int64_t k : {1, 3, 5, 100}) {
        const ops::TermRef ck = gradient(cost.outputs[0].term, cost.inputs[w], {.checkpoint = k});
        INFO("case " << c << " wrt " << w << " checkpoint " << k << "\n"
                     << ops::print_graph(with_output(cost, ck)));
        check_close(want, run1(with_output(cost, ck), inputs), 1e-9);
        // 3 and 5 round down to a divisor of the steps: the loop is segmented.
        if ((k == 3 || k == 5) && count_ops(taped, ops::OpKind::Scan) > 0)
          CHECK(count_ops(ck, ops::OpKind::Scan) > count_ops(taped, ops::OpKind::Scan));
      }
    }
  }
}

TEST_CASE("grad with :checkpoint K through the optimize pipeline equals the taped gradient",
          "[grad][checkpoint]") {
  const std::string head =
      "(input x (f64 12 3)) (input h (f64 3)) (input a (f64 3))\n"
      "(let s (scan :sequences (x) :sit-sot (h) :non-sequences (a)"
      " (fn (xt hp a_) (tanh (add (mul hp a_) xt)))))\n";
  const std::string cost = "(sum (index (get 0 s) -1))";
  const ops::Graph with_k = graph(head + "(output (grad " + cost + " a :checkpoint 4))");
  CHECK(ops::print_graph(with_k).find(":checkpoint 4") != std::string::npos);
  CHECK(with_k.outputs[0].term != graph(head + "(output (grad " + cost + " a))").outputs[0].term);
  CHECK(graph(head + "(output (grad " + cost + " a :checkpoint 0))").outputs[0].term ==
        graph(head + "(output (grad " + cost + " a))").outputs[0].term);
  CHECK_THROWS_AS(graph(head + "(output (grad " + cost + " a :checkpoint -1))"),
                  ops::DiagnosticError);
  const ops::Graph taped =
      rules::optimize(graph(head + "(output (grad " + cost + " a))"), shipped_rules());
  const ops::Graph ck = rules::optimize(with_k, shipped_rules());
  REQUIRE_FALSE(has_grad(ck.outputs[0].term));
  std::mt19937_64 rng(10);
  const auto inputs = random_inputs(with_k, rng);
  check_close(run1(taped, inputs), run1(ck, inputs), 1e-9);
}

TEST_CASE("an RNN's weight gradients are one matrix product each, outside the reverse loop",
          "[grad][clean]") {
  // PyTensor's push-out-add: the reverse loop accumulates xₜ·δₜᵀ per step;
  // optimized, it returns the δₜ and dW = Xᵀ·Δ is one product.
  const ops::Graph g = graph(
      "(input xs (f64 12 3)) (input W (f64 4 4)) (input U (f64 3 4)) (input h0 (f64 4))\n"
      "(let s (scan :sequences (xs) :sit-sot (h0) :non-sequences (W U)"
      " (fn (x h w u) (tanh (add (dot h w) (dot x u))))))\n"
      "(let loss (sum (index (get 0 s) -1)))\n"
      "(output (grad loss W)) (output (grad loss U))");
  const ops::Graph opt = rules::optimize(g, shipped_rules());
  INFO(ops::print_graph(opt));
  for (std::size_t o = 0; o < 2; ++o) {
    // No loop carries an accumulator of the gradient: every loop has one sit-sot.
    for_each_term(opt.outputs[o].term, [&](ops::TermRef t) {
      if (t->kind() == ops::OpKind::Scan)
        CHECK(t->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan).num_sitsot == 1);
    });
    CHECK(opt.outputs[o].term->kind() == ops::OpKind::Dot);
  }
  std::mt19937_64 rng(5);
  const auto inputs = random_inputs(g, rng);
  const auto got = backend::compile(opt).run(inputs);
  const ops::Graph cost = with_output(g, g.outputs[0].term->operand(0));
  check_close(finite_difference(cost, inputs, 1), got[0], 1e-6);
  check_close(finite_difference(cost, inputs, 2), got[1], 1e-6);
}

TEST_CASE("a loop that runs no step passes the cotangent straight through", "[grad][until]") {
  // The cost reads the last state through the initial one (a loop of 0
  // steps gives x itself), the nit-sot's rows and the non-sequence's use:
  // with no step, d/dx is cos(x), d/da is 0; with steps, finite differences.
  const std::string head =
      "(input x (f64 3)) (input a (f64 3)) (input k i64)\n"
      "(let s (scan :n-steps k :sit-sot (x) :nit-sot 1 :non-sequences (a)"
      " (fn (h a_) (tanh (mul h a_)) (mul h 2.0))))\n";
  const std::string cost =
      "(add (sum (sin (index (concat (expand_dims x :axis 0) (get 0 s)) -1))) (sum (get 1 s)))";
  const ops::Graph c = graph(head + "(output " + cost + ")");
  std::mt19937_64 rng(3);
  for (std::int64_t k : {0, 1, 4}) {
    std::vector<ops::Array> inputs{random_array(c.inputs[0]->tensor_type(), rng),
                                   random_array(c.inputs[1]->tensor_type(), rng),
                                   ops::Array::filled(ops::DType::I64, {}, static_cast<double>(k))};
    for (std::size_t w : {0, 1}) {
      INFO("k = " << k << ", wrt "
                  << "xa"[w]);
      const ops::Array fd = finite_difference(c, inputs, w);
      if (k == 0)
        for (std::int64_t i = 0; i < 3; ++i)
          CHECK(fd.element(i) ==
                Approx(w == 0 ? std::cos(inputs[0].element(i)) : 0.0).margin(1e-6));
      check_close(fd, run1(with_output(c, gradient(c.outputs[0].term, c.inputs[w])), inputs), 1e-5);
      const ops::Graph opt = rules::optimize(
          graph(head + "(output (grad " + cost + " " + "xa"[w] + "))"), shipped_rules());
      REQUIRE_FALSE(has_grad(opt.outputs[0].term));
      check_close(fd, run1(opt, inputs), 1e-5);
    }
  }
  // `:n-steps 0` known statically, with a nit-sot: zeros for x.
  const ops::Graph none = graph(
      "(input x (f64 3))\n"
      "(let s (scan :n-steps 0 :sit-sot (x) :nit-sot 1 (fn (h) (sin h) (mul h 2.0))))\n"
      "(output (grad (add (sum (get 0 s)) (sum (get 1 s))) x))");
  const ops::Graph opt = rules::optimize(none, shipped_rules());
  REQUIRE_FALSE(has_grad(opt.outputs[0].term));
  check_close(ops::Array::filled(ops::DType::F64, {3}, 0.0),
              run1(opt, {ops::Array::filled(ops::DType::F64, {3}, 0.5)}), 0);
}

TEST_CASE("a loop keeping its last state pulls back 0, 1 or more steps known only at run time",
          "[grad][edges]") {
  // `:keep (1 all)` with a run-time step count: 0 steps keep no row (the
  // cost is 0 and so is its gradient), then the last state's cotangent.
  const std::string head =
      "(input x (f64 3)) (input y (f64 3)) (input n i64)\n"
      "(let s (scan :n-steps n :sit-sot ((sqrt x) (tanh x)) :non-sequences (y) :keep (1 all)"
      " (fn (h k w) (mul h w) (add k h))))\n";
  const std::string cost = "(add (sum (get 0 s)) (sum (get 1 s)))";
  const ops::Graph c = graph(head + "(output " + cost + ")");
  const ops::Graph opt =
      rules::optimize(graph(head + "(output (grad " + cost + " x))"), shipped_rules());
  REQUIRE_FALSE(has_grad(opt.outputs[0].term));
  std::mt19937_64 rng(5);
  for (std::int64_t n : {0, 1, 3}) {
    INFO("n = " << n);
    std::vector<ops::Array> inputs{ops::Array(ops::DType::F64, {3}),
                                   random_array(c.inputs[1]->tensor_type(), rng),
                                   ops::Array::filled(ops::DType::I64, {}, static_cast<double>(n))};
    for (std::int64_t i = 0; i < 3; ++i) inputs[0].data<double>()[i] = 0.5 + static_cast<double>(i);
    check_close(finite_difference(c, inputs, 0), run1(opt, inputs), 1e-5);
  }
  // No step: the cost is 0 whatever x is, and no cotangent reaches the
  // initial states, even where their own derivative is NaN (sqrt at x < 0).
  check_gradient_of_input0(
      head, cost,
      {ops::Array::filled(ops::DType::F64, {3}, -1.0),
       ops::Array::filled(ops::DType::F64, {3}, 2.0), ops::Array::filled(ops::DType::I64, {}, 0.0)},
      ops::Array::filled(ops::DType::F64, {3}, 0.0), 0);
  // A body that does not read the state: its cotangent is none at all, so
  // the NaN derivative of sqrt at x < 0 stays out for every step count.
  const ops::Graph blind = rules::optimize(
      graph("(input x (f64 3)) (input y (f64 3)) (input n i64)\n"
            "(let s (scan :n-steps n :sit-sot ((sqrt x)) :non-sequences (y) :keep (1)"
            " (fn (h w) w)))\n"
            "(output (grad (sum (get 0 s)) x))"),
      shipped_rules());
  for (std::int64_t n : {0, 2}) {
    INFO("n = " << n);
    const ops::Array x = ops::Array::filled(ops::DType::F64, {3}, -1.0);
    const ops::Array y = ops::Array::filled(ops::DType::F64, {3}, 2.0);
    check_close(
        ops::Array::filled(ops::DType::F64, {3}, 0.0),
        run1(blind, {x, y, ops::Array::filled(ops::DType::I64, {}, static_cast<double>(n))}), 0);
  }
}

TEST_CASE("a NaN in a loop state no cost reads does not reach the gradient", "[grad][edges]") {
  // h becomes NaN (sqrt of -2), but the cost reads only the nit-sot: the
  // state gets no cotangent, so no 0 * NaN. Finite differences: [2 2 2].
  const ops::Graph g = graph(
      "(input x (f64 3))\n"
      "(let s (scan :n-steps 2 :sit-sot ((const f64 0.0)) :nit-sot 1 :non-sequences (x)\n"
      "  (fn (h w) (mul h (sum (sqrt w))) (sum w))))\n"
      "(output (sum (get 1 s)))");
  std::vector<ops::Array> in{ops::Array(ops::DType::F64, {3})};
  in[0].data<double>()[0] = 1;
  in[0].data<double>()[1] = -2;
  in[0].data<double>()[2] = 3;
  const ops::Array two = ops::Array::filled(ops::DType::F64, {3}, 2.0);
  check_close(two, finite_difference(g, in, 0), 1e-6);
  check_close(two, run1(with_output(g, gradient(g.outputs[0].term, g.inputs[0])), in), 1e-12);
  for (std::int64_t k : {0, 1}) {  // taped, and checkpointed every step
    ops::Attrs every;
    if (k > 0) every.set(ops::AttrKey::Checkpoint, k);
    const ops::Graph opt = rules::optimize(
        with_output(g, ops::Term::make(ops::OpKind::Grad, every, {g.outputs[0].term, g.inputs[0]})),
        shipped_rules());
    INFO("checkpoint " << k);
    check_close(two, run1(opt, in), 1e-12);
  }
}

TEST_CASE("a NaN in loop steps after the last one read does not reach the gradient",
          "[grad][edges]") {
  // h1 = sqrt(x - 1) is read; h2 = sqrt(h1 - 1) is NaN for x < 4 but no
  // cost reads it: its zero cotangent stays zero through sqrt's derivative.
  const ops::TermRef d = check_first_step_gradient("(sum (index (get 0 s) 0))");
  // The masks cost a comparison per step: only where a row after the last
  // one read exists. A cost reading every row, or the last, has none.
  CHECK(count_ops(d, ops::OpKind::Eq) > 0);
  for (const char* every : {"(sum (get 0 s))", "(sum (index (get 0 s) -1))"}) {
    const ops::Graph dense = graph(kSqrtLoop + "(output " + every + ")");
    CHECK(count_ops(gradient(dense.outputs[0].term, dense.inputs[0]), ops::OpKind::Eq) == 0);
  }
}

TEST_CASE("a NaN in loop steps after the rows a resize_rows keeps does not reach the gradient",
          "[grad][edges]") {
  // The cost keeps row 0 of the loop's output with resize_rows: the
  // cotangent is that row padded back with zero rows (resize_rows' own
  // pullback), so the steps after it need zero masks as after a slice.
  check_first_step_gradient("(sum (resize_rows (get 0 s) 1))");
}

TEST_CASE("an initial state no step that ran passes on gets 0, even where its derivative is NaN",
          "[grad][edges]") {
  // a starts at sqrt(x), NaN at x < 0, but each step overwrites b with b
  // itself (the where never takes a): the cost reads only b, so finite
  // differences give 1 everywhere, and the reverse loop carries an exact 0
  // to a's initial value, which must not meet sqrt's NaN derivative.
  for (const char* steps : {"2", "n"}) {
    INFO(":n-steps " << steps);
    const std::string head = std::string("(input x (f64 3)) (input n i64)\n") +
                             "(let s (scan :n-steps " + steps +
                             " :sit-sot ((sqrt x) x) (fn (a b) b (where (gt b 100.0) a b))))\n";
    std::vector<ops::Array> at{ops::Array(ops::DType::F64, {3}),
                               ops::Array::filled(ops::DType::I64, {}, 2.0)};
    for (std::int64_t i = 0; i < 3; ++i) at[0].data<double>()[i] = i == 0 ? -1.0 : 4.0 * i;
    check_gradient_of_input0(head, "(sum (index (get 1 s) -1))", at,
                             ops::Array::filled(ops::DType::F64, {3}, 1.0), 0);
  }
}
