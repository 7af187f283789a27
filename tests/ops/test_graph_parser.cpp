// The graph parser: every form of docs/language.md, weak literals, hash-consing
// and alpha-equivalence through the parser, and located errors (the files
// of tests/ops/fail, one bad graph each, with the expected message on their
// first line).
#include "ops/graph_parser.hpp"

#include "ops/graph_printer.hpp"
#include "ops/npy.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

using namespace eqsat::ops;

namespace {

const std::string kData = std::string(EQSAT_TESTS_DIR) + "/data";

Graph parse(const std::string& text) {
  return parse_graph(text, "t.eg", kData);
}

TermRef output(const Graph& g, const std::string& name) {
  for (const auto& o : g.outputs)
    if (o.name == name) return o.term;
  FAIL("no output " << name);
  return nullptr;
}

// The message of the single diagnostic parsing `text` gives.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("inputs, lets, defs and outputs build the documented graph") {
  const Graph g = parse(R"(
    (input x (f64 1000))           ; inputs, in positional order
    (input a f64)
    (let t (exp x))
    (def softplus2 (fn ((v (f64 ?))) (log1p (exp v))))
    (output (add t (call softplus2 x)))
    (output total (sum t))
  )");
  const TermRef x = Term::input("x", {DType::F64, {1000}});
  REQUIRE(g.inputs == std::vector<TermRef>{x, Term::input("a", {DType::F64, {}})});
  REQUIRE(g.outputs.size() == 2);
  CHECK(g.outputs[0].name == "out0");
  CHECK(g.outputs[1].name == "total");
  const TermRef t = Term::make(OpKind::Exp, {}, {x});
  CHECK(output(g, "total") == Term::make(OpKind::Sum, {}, {t}));
  REQUIRE(g.defs.size() == 1);
  CHECK(g.defs[0].name == "softplus2");
  const TensorType v{DType::F64, {kUnknownDim}};
  const TermRef body = Term::fn(
      {v}, {Term::make(OpKind::Log1p, {}, {Term::make(OpKind::Exp, {}, {Term::nominal(0, v)})})});
  CHECK(g.defs[0].term == body);
  CHECK(output(g, "out0") ==
        Term::make(OpKind::Add, {}, {t, Term::make(OpKind::Call, {}, {body, x})}));
  CHECK(g.def_name(body) != nullptr);
  // Locations point at the sub-expression that built each term.
  REQUIRE(g.location(t) != nullptr);
  CHECK(*g.location(t) == SourceLocation{"t.eg", 4, 12});
}

TEST_CASE("a weak literal takes the dtype of the array it meets") {
  const Graph g = parse(R"(
    (input f (f32 3))
    (input i (i32 3))
    (input b (bool 3))
    (output a (add f 2))          ; int literal meets f32: f32
    (output c (add i 2))          ; int literal meets i32: i32
    (output d (add i 0.5))        ; float literal meets i32: f64
    (output e (add 1 2))          ; two literals: i64
    (output h (add 1 2.5))        ; two literals, one float: f64
    (output k (where b 1 f))      ; where: the literal meets the other value
    (output m (add b 1))          ; int literal meets bool: i64
    (output n (mul (add f 1) 2.0)) ; stays f32 through a chain
  )");
  auto dtype = [&](const char* name) { return output(g, name)->tensor_type().dtype; };
  CHECK(dtype("a") == DType::F32);
  CHECK(dtype("c") == DType::I32);
  CHECK(dtype("d") == DType::F64);
  CHECK(dtype("e") == DType::I64);
  CHECK(dtype("h") == DType::F64);
  CHECK(dtype("k") == DType::F32);
  CHECK(dtype("m") == DType::I64);
  CHECK(dtype("n") == DType::F32);
  // The literal itself became a typed scalar constant.
  CHECK(output(g, "a")->operand(1) == Term::scalar(DType::F32, 2));
  CHECK(output(g, "d")->operand(1) == Term::scalar(DType::F64, 0.5));
}

TEST_CASE("literals in calls, indices, lengths and scan slots") {
  const Graph g = parse(R"(
    (input x (f32 4))
    (def half (fn ((v f32)) (mul v 0.5)))
    (output a (call half 3))                 ; the parameter's dtype: f32
    (output b (index x 1))                   ; an index: i64
    (output c (full 2 :shape (2) :dtype f32)) ; :dtype of full
    (output d (arange 3))                    ; a length: i64
    (let s (scan :n-steps 3 :sit-sot (0.0) (fn (acc) (add acc 1))))
    (output e (get 0 s))                     ; the state is f64, and so is 1
  )");
  CHECK(output(g, "a")->operand(1) == Term::scalar(DType::F32, 3));
  CHECK(output(g, "b")->operand(1) == Term::scalar(DType::I64, 1));
  CHECK(output(g, "c")->operand(0) == Term::scalar(DType::F32, 2));
  CHECK(output(g, "d")->tensor_type() == TensorType{DType::I64, {3}});
  CHECK(output(g, "e")->tensor_type() == TensorType{DType::F64, {3}});
}

TEST_CASE("a literal initial state takes the dtype of the body's next state") {
  const Graph g = parse(R"(
    (input xs (f32 10))
    (let s (scan :sequences (xs) :sit-sot (0) (fn (x acc) (add acc x))))
    (let c (scan :sequences (xs) :sit-sot (0) (fn (x acc) (add acc 1))))
    (output sum (get 0 s))
    (output count (get 0 c))
  )");
  CHECK(output(g, "sum")->tensor_type() == TensorType{DType::F32, {10}});
  CHECK(output(g, "sum")->operand(0)->operand(2) == Term::scalar(DType::F32, 0));
  CHECK(output(g, "count")->tensor_type() == TensorType{DType::I64, {10}});
}

TEST_CASE("a let bound to a literal stays weak until an op uses it") {
  const Graph g = parse(R"(
    (input f (f32 3))
    (let two 2)
    (output a (mul f two))
    (output b two)
  )");
  CHECK(output(g, "a")->tensor_type().dtype == DType::F32);
  CHECK(output(g, "b") == Term::scalar(DType::I64, 2));
}

TEST_CASE("alpha-equivalent bodies are the same term, whatever the parameter names") {
  const Graph g = parse(R"(
    (input xs (f64 10))
    (input h0 f64)
    (def f (fn ((a f64) (b f64)) (let s (add a b)) (mul s s)))
    (def g (fn ((u f64) (v f64)) (mul (add u v) (add u v))))
    (let s1 (scan :sequences (xs) :sit-sot (h0) (fn (x h) (add h x))))
    (let s2 (scan :sequences (xs) :sit-sot (h0) (fn (y acc) (add acc y))))
    (output o1 (get 0 s1))
    (output o2 (get 0 s2))
    (output c1 (call f h0 h0))
    (output c2 (call g h0 h0))
  )");
  CHECK(output(g, "o1") == output(g, "o2"));
  CHECK(output(g, "c1") == output(g, "c2"));
  REQUIRE(g.defs.size() == 2);
  CHECK(g.defs[0].term == g.defs[1].term);
}

TEST_CASE("equal expressions are shared: hash-consing through the parser") {
  const Graph g = parse(R"(
    (input x (f64 3))
    (let a (exp (mul x 2)))
    (output p (add a (exp (mul x 2))))
  )");
  const TermRef p = output(g, "p");
  CHECK(p->operand(0) == p->operand(1));
}

TEST_CASE(":inline false is part of the def's fn term") {
  const Graph g = parse(R"(
    (def f (fn ((v f64)) (exp v)))
    (def g (fn ((v f64)) (exp v)) :inline false)
    (def h (fn ((v f64)) (exp v)) :inline true)
    (output (call g 1.0))
  )");
  REQUIRE(g.defs.size() == 3);
  CHECK(g.defs[0].term != g.defs[1].term);
  CHECK(g.defs[0].term == g.defs[2].term);
  CHECK(g.defs[1].term->attrs().get<bool>(AttrKey::Inline) == false);
}

TEST_CASE("every scan slot kind") {
  const Graph g = parse(R"(
    (input ys (f64 10))
    (input zs (f64 11))
    (input h0 (f64 2))
    (input x0 f64)
    (input a f64)
    (let s (scan :sequences (ys (zs :taps (0 1)))
                 :mit-sot ((h0 :taps (-2 -1)))
                 :sit-sot (x0)
                 :nit-sot 1
                 :non-sequences (a)
                 :until true
                 :keep (all 3 all)
                 (fn (y_t z_t z_tp1 h_tm2 h_tm1 x_tm1 a_)
                   (let s (add h_tm1 h_tm2))
                   (mul s a_)
                   (add x_tm1 y_t)
                   (mul z_t z_tp1)
                   (gt x_tm1 100.0))))
    (output (get 2 s))
  )");
  const TermRef scan = output(g, "out0")->operand(0);
  REQUIRE(scan->kind() == OpKind::Scan);
  const ScanSpec& spec = scan->attrs().get<ScanSpec>(AttrKey::Scan);
  CHECK(spec.sequence_taps == std::vector<IntList>{{0}, {0, 1}});
  CHECK(spec.mitsot_taps == std::vector<IntList>{{-2, -1}});
  CHECK(spec.num_sitsot == 1);
  CHECK(spec.num_nitsot == 1);
  CHECK(spec.num_nonsequences == 1);
  CHECK(spec.until);
  CHECK_FALSE(spec.has_n_steps);
  CHECK(spec.keep == IntList{0, 3, 0});
  CHECK(scan->arity() == 6);
  CHECK(scan->type() == Type{TupleType{{TensorType{DType::F64, {kUnknownDim}},
                                        TensorType{DType::F64, {kUnknownDim}},
                                        TensorType{DType::F64, {kUnknownDim}}}}});
}

TEST_CASE(":keep of all steps everywhere is the same scan as no :keep") {
  const Graph g = parse(R"(
    (input h0 f64)
    (let s1 (scan :n-steps 4 :sit-sot (h0) (fn (h) (mul h 2.0))))
    (let s2 (scan :n-steps 4 :sit-sot (h0) :keep (all) (fn (h) (mul h 2.0))))
    (output a (get 0 s1))
    (output b (get 0 s2))
  )");
  CHECK(output(g, "a") == output(g, "b"));
  CHECK(output(g, "a")->tensor_type() == TensorType{DType::F64, {4}});
}

TEST_CASE("taps in any order: sorted in the scan and the parameters follow the written order") {
  // Written (-1 -3) and (2 0): the body's first parameter of each slot reads
  // the first tap written. Both spellings are one term, printed sorted.
  const Graph g = parse(R"(
    (input xs (f64 10))
    (input h0 (f64 3))
    (let s1 (scan :sequences ((xs :taps (2 0))) :mit-sot ((h0 :taps (-1 -3)))
                  (fn (x2 x0 h1 h3) (add (sub x2 x0) (mul h1 h3)))))
    (let s2 (scan :sequences ((xs :taps (0 2))) :mit-sot ((h0 :taps (-3 -1)))
                  (fn (x0 x2 h3 h1) (add (sub x2 x0) (mul h1 h3)))))
    (output a (get 0 s1))
    (output b (get 0 s2))
  )");
  CHECK(output(g, "a") == output(g, "b"));
  const ScanSpec& spec = output(g, "a")->operand(0)->attrs().get<ScanSpec>(AttrKey::Scan);
  CHECK(spec.sequence_taps == std::vector<IntList>{{0, 2}});
  CHECK(spec.mitsot_taps == std::vector<IntList>{{-3, -1}});
  const std::string printed = print_graph(g);
  CHECK(printed.find(":taps (0 2)") != std::string::npos);
  CHECK(printed.find(":taps (-3 -1)") != std::string::npos);
}

TEST_CASE("const and load build constants - load is relative to the graph file") {
  const Graph g = parse(R"(
    (output a (const (i32 2 2) (1 2 3 4)))
    (output b (const f32 (1.5)))
    (output c (const (f64 3) (inf -inf nan)))
    (output d (load "f64_2x3.npy"))
    (output e true)
  )");
  const Array& a = *output(g, "a")->const_value();
  CHECK(a.type() == TensorType{DType::I32, {2, 2}});
  CHECK(a.element(3) == 4);
  CHECK(output(g, "b") == Term::scalar(DType::F32, 1.5));
  CHECK(std::isnan(output(g, "c")->const_value()->element(2)));
  const TermRef d = output(g, "d");
  CHECK(d->const_value()->same_value(read_npy(kData + "/f64_2x3.npy")));
  CHECK(d->attrs().get<std::string>(AttrKey::Path) == "f64_2x3.npy");
  CHECK(output(g, "e") == Term::constant(Array::scalar(DType::Bool, 1)));
}

TEST_CASE("grad inside a body is taken with respect to one of its parameters") {
  const Graph g = parse(R"(
    (def slope (fn ((v f64)) (grad (mul v v) v)))
    (output (call slope 3.0))
  )");
  const TermRef grad = g.defs[0].term->operand(0);
  REQUIRE(grad->kind() == OpKind::Grad);
  CHECK(grad->operand(1) == Term::nominal(0, {DType::F64, {}}));
}

TEST_CASE("a body parameter may shadow an outer name") {
  const Graph g = parse(R"(
    (input x (f64 3))
    (def f (fn ((x (f64 3))) (exp x)))
    (output (call f x))
  )");
  CHECK(g.defs[0].term->operand(0)->operand(0)->kind() == OpKind::Nominal);
}

TEST_CASE("errors in several top-level forms are all reported, without cascades") {
  try {
    parse("(input x (f64 3))\n(let a (exp y))\n(let b (add a x))\n(output (log z))\n");
    FAIL("accepted");
  } catch (const DiagnosticError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK(e.diagnostics()[0].to_string() == "t.eg:2:13: error: unknown name 'y'");
    CHECK(e.diagnostics()[1].to_string() == "t.eg:4:14: error: unknown name 'z'");
  }
}

TEST_CASE("a huge unknown name is quoted shortened - with no suggestion search over it") {
  const std::string name(10'000'000, 'q');
  for (const std::string& text : {"(input x (f64 3))\n(output (" + name + " x))\n",
                                  "(output " + name + ")\n", "(output (e" + name + "p 1))\n"}) {
    const std::string message = error_of(text);
    CHECK(message.size() < 200);
    CHECK_THAT(message, Catch::Contains(std::string(47, 'q')));
    CHECK_THAT(message, Catch::Contains("bytes)'"));
    CHECK_THAT(message, !Catch::Contains("did you mean"));
  }
  // Near a name, within 64 bytes: the suggestion stays.
  CHECK_THAT(error_of("(input x (f64 3))\n(output (expp x))\n"),
             Catch::EndsWith("unknown op 'expp'; did you mean 'exp'?"));
  CHECK(capped_quote(std::string(64, 'a')) == std::string(64, 'a'));
  CHECK(capped_quote(std::string(65, 'a')) == std::string(48, 'a') + "...(65 bytes)");
  CHECK(capped_quote(std::string(47, 'a') + "\u00e9" + std::string(30, 'b')) ==
        std::string(47, 'a') + "...(79 bytes)");  // never half a character
}

TEST_CASE("a missing graph file is a located error") {
  CHECK_THROWS_WITH(parse_graph_file("/nonexistent/g.eg"),
                    "/nonexistent/g.eg: error: cannot read file: No such file or directory");
  CHECK(error_of("(input x (f64 3))\n(output (exp x)") ==
        "t.eg:2:1: error: unbalanced '(': no matching ')'");
}

TEST_CASE("every bad graph in tests/ops/fail is rejected with its expected message") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(EQSAT_TESTS_DIR) + "/fail"))
    if (entry.path().extension() == ".eg") files.push_back(entry.path());
  std::ranges::sort(files);
  REQUIRE(files.size() >= 40);
  for (const auto& path : files) {
    DYNAMIC_SECTION(path.filename().string()) {
      std::ifstream in(path);
      std::string first;
      std::getline(in, first);
      const std::string prefix = "; expect: ";
      REQUIRE(first.rfind(prefix, 0) == 0);
      const std::string expected = path.string() + ":" + first.substr(prefix.size());
      try {
        parse_graph_file(path.string());
        FAIL("accepted");
      } catch (const DiagnosticError& e) {
        CHECK(e.diagnostics().size() == 1);
        CHECK(e.diagnostics().front().to_string() == expected);
      }
    }
  }
}

TEST_CASE("mutated graphs are parsed (and print back) or rejected with a diagnostic") {
  // Random edits of every example: deletions, duplications and insertions of
  // characters and tokens that matter to the grammar.
  std::vector<std::string> sources;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(EQSAT_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".eg") continue;
    std::ifstream in(entry.path());
    sources.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::sort(sources.begin(), sources.end());
  REQUIRE(!sources.empty());
  const char* const kTokens[] = {"(",          ")",          " x",          " 0",          " -1",
                                 " 2.5",       " :axis",     " :taps (-1)", " (fn (a) a)", " ?",
                                 " true",      " \"w.npy\"", " (get 0 x)",  " :sit-sot",   " (scan",
                                 " (let q 1)", " f64",       " (i32 ?)"};
  std::mt19937 rng(11);
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = sources[rng() % sources.size()];
    for (int edits = 1 + rng() % 3; edits > 0; --edits) {
      const std::size_t at = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0:
          text.erase(at, 1 + rng() % 8);
          break;
        case 1:
          text.insert(at, kTokens[rng() % std::size(kTokens)]);
          break;
        default:
          text.insert(at, text.substr(rng() % text.size(), 1 + rng() % 12));
      }
    }
    try {
      const Graph g = parse_graph(text, "m.eg", kData);
      ++accepted;
      // What is accepted prints back to the same graph.
      const std::string printed = print_graph(g);
      INFO(text << "\nprinted:\n" << printed);
      REQUIRE(parse_graph(printed, "p.eg", kData) == g);
    } catch (const DiagnosticError& e) {
      ++rejected;
      INFO(text);
      REQUIRE(e.diagnostics().front().to_string().rfind("m.eg:", 0) == 0);
    }
  }
  CHECK(rejected > 0);
  CHECK(accepted + rejected == 3000);
}
