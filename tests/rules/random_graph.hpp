// The random graph generator of the property tests
// (tests/rules/pipeline/test_optimize_property*.cpp,
// tests/rules/autodiff/test_gradient_property.cpp, test_validate.cpp):
// random well-typed graphs over the wide catalogue (elementwise ops with
// broadcasting and literals, where, reductions, softmax, dot chains, shape
// ops, indexing, creation, calls of defs, small scans with sequences,
// mit-sots, sit-sots, accumulators, nit-sots, :keep, :until, nested in
// loops and defs, read whole or in their first or last steps) and the
// input values they are fed with. With `corners`, also the cases that
// gave wrong answers before (issue 25); with `gradients`, grad outputs.
//
//   ProgramGenerator gen(seed, {.corners = true});
//   RandomCase c = gen.make();
//   std::vector<ops::Array> inputs = random_inputs(c, seed);
#pragma once

#include "ops/graph.hpp"

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace eqsat::testing {

using Operands = std::vector<ops::TermRef>;

// A random graph and the concrete shapes its inputs are fed with (an input
// may declare unknown dimensions, fed with 1 or 0 elements in corners).
struct RandomCase {
  ops::Graph graph;
  std::vector<ops::Dims> input_dims;
  // `(grad (sum OUT) X)` outputs (with GeneratorOptions::gradients), kept
  // apart: the graph as written cannot run them.
  std::vector<ops::NamedTerm> gradients;
  // Inputs fed with ordinary values only (a run-time index, an exact count).
  std::vector<bool> plain_input;
  // Every float value is f64 and no cast goes to f32 (gradient mode).
  bool f64_only = false;

  // The graph with the gradient outputs after the others.
  ops::Graph with_gradients() const;
};

struct GeneratorOptions {
  // How many of 24 draws build a scan (plus the ordinary share), in [0, 24).
  int scan_bias = 0;
  // Loops may also appear in loop bodies.
  bool nested_loops = false;
  // Issue 25's corners: `:until` loops read at run-time (negative) indices
  // and counting their steps into a cast, unknown dimensions fed with 1 or
  // 0 elements, defs with unknown parameter dimensions and calls with
  // less-known arguments, loops whose step count is an input (often 0),
  // `pow` idioms over negative bases, log(exp a − exp b), `broadcast_like`
  // over unknown lengths, and inputs at ±∞ and NaN (random_inputs).
  bool corners = false;
  // One or two `(grad (sum OUT) X)` outputs over f64 inputs; floats are f64.
  bool gradients = false;
  // In corners, `broadcast_like` over pool values (false: each graph as
  // its seed drew it before this corner, for the test that it moves no
  // other draw).
  bool broadcast_like = true;
};

// Builds random graphs op family by op family, choosing operands that fit
// (broadcastable shapes, matching inner dimensions, unit axes to squeeze),
// adding fresh inputs where an op needs a partner of a given shape, and
// skipping the rare application the type rules still refuse. Every shape
// is static except for inputs declared with `?` (and, in corners, def
// parameters). Scans and defs get random bodies over nominals built the
// same way. Deterministic for a seed and options.
class ProgramGenerator {
 public:
  explicit ProgramGenerator(std::uint64_t seed, GeneratorOptions options = {})
      : rng_(seed),
        late_rng_(seed ^ 0x5eed'c0de'5eed'c0deULL),
        like_rng_(seed ^ 0xb0ad'ca57'b0ad'ca57ULL),
        options_(options) {}

  RandomCase make();

  // How often each family (and each corner) was built, by name.
  const std::map<std::string, int>& built() const { return built_; }

 private:
  using TermRef = ops::TermRef;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin() { return pick(0, 1) == 1; }
  template <class T>
  const T& choose(const std::vector<T>& xs) {
    return xs[static_cast<std::size_t>(pick(0, static_cast<int>(xs.size()) - 1))];
  }

  ops::DType random_float() {
    return !options_.gradients && pick(0, 3) == 0 ? ops::DType::F32 : ops::DType::F64;
  }

  ops::Dims random_dims();

  // A new graph input of `dims`; one in five declares its first dimension
  // `?` (one in three in corners). `plain`: fed with ordinary values only.
  TermRef new_input(const ops::Dims& dims, ops::DType dtype, bool plain = false);

  // A literal the rules look for (0, 1, -1, 2, ½) or another small number.
  double literal_value();

  // A constant partner for `a`: a scalar (as a weak literal becomes), a
  // uniform array of a's shape, or a small array of random values.
  TermRef constant_like(TermRef a);

  TermRef operand(const std::vector<TermRef>& pool) { return choose(pool); }

  // A partner that broadcasts with `a`: another value of the pool whose
  // shape broadcasts, a fresh input of a broadcastable shape, or a constant.
  TermRef partner(const std::vector<TermRef>& pool, TermRef a, bool inputs_allowed);

  static std::int64_t rank(TermRef t) { return static_cast<std::int64_t>(t->tensor_type().rank()); }

  void count(const std::string& what) { ++built_[what]; }

  // Applies `steps` random ops to values of `pool`, appending results.
  // `depth` > 0 inside bodies: no fresh inputs, no nested loops.
  void grow(std::vector<TermRef>& pool, int steps, int depth);

  TermRef make(ops::OpKind kind, ops::Attrs attrs, Operands operands, const char* family);

  // In corners, now and then `broadcast_like(t, y)` for a pool value y,
  // when that keeps t's type: statically it changes nothing, so the main
  // stream's later draws see the graph they always did; at run time an
  // unknown length of y fed with 0 elements makes it fail, or one of t's
  // fed with 1 is widened to y's. Drawn from like_rng_ alone.
  TermRef broadcast_like_corner(const std::vector<TermRef>& pool, TermRef t);

  TermRef apply(std::vector<TermRef>& pool, int depth);

  // The left side of a shipped rule, over pool values: the unstable forms
  // `stabilize` replaces, inverse pairs, negations, reductions over new or
  // broadcast axes, shape-op pairs, identity matrices.
  TermRef idiom(std::vector<TermRef>& pool, TermRef a);
  // Corners' idioms: pow pairs over any base, log(exp a − exp b).
  TermRef corner_idiom(std::vector<TermRef>& pool, TermRef a);

  // dot: vector·vector, matrix·vector, matrix chains and batched products,
  // the partner a fresh input (or a pool value) of a fitting shape.
  TermRef dot(std::vector<TermRef>& pool, TermRef a, bool top);

  TermRef shape_op(std::vector<TermRef>& pool, TermRef a, bool top);

  TermRef concat_or_stack(std::vector<TermRef>& pool, TermRef a, bool top);

  TermRef indexing(std::vector<TermRef>& pool, TermRef a);

  TermRef creation(TermRef a);

  // A def over one or two parameters of input types (in corners, the first
  // dimension sometimes unknown), with one or two outputs.
  void make_def();

  // A call of a def on pool values of its parameter types (in corners,
  // sometimes of a less-known type: an unknown dimension where the
  // parameter has a known one).
  TermRef call(const std::vector<TermRef>& pool);

  // A small loop: an optional sequence, an optional mit-sot, one or two
  // sit-sots (sometimes one accumulating add/mul/maximum/minimum of an
  // elementwise function of the sequence), an optional nit-sot,
  // non-sequences that are sometimes constants, unused or duplicated, body
  // work that reads only non-sequences (invariant), sometimes :keep and
  // :until (in corners, sometimes on an i64 step counter that the loop's
  // result is cast from). Bodies at `depth` + 1 may hold loops themselves.
  TermRef scan(const std::vector<TermRef>& pool, int depth);

  // h' = op(h, f(x, non-sequences)) with op accumulating and f elementwise
  // in the sequence element x, of h's type.
  TermRef accumulator(TermRef h, TermRef x, const std::vector<std::size_t>& nonseq_params,
                      const std::vector<TermRef>& body);

  // `out` whole, or an index or slice of its first or last steps; in
  // corners, at the top, an index that is a run-time input (often negative).
  TermRef read_steps(TermRef out, int depth);

  // Adds one or two gradient outputs over f64 inputs (gradient mode).
  void add_gradients();

  // Counts, as "grad-..." corners, the corners of issue 25 that the cost
  // of a gradient crosses when it depends on `wrt`: an `:until` loop (and
  // with it a set_index, a call, a cast, a read at a run-time index), a
  // loop of 0 steps, an input of unknown length fed with 1 or 0 elements,
  // a call with a less-known argument.
  void count_gradient_corners(TermRef cost, TermRef wrt);

  std::mt19937_64 rng_;
  // Draws of corners added after regression seeds were recorded: their own
  // stream, so a graph that does not take them is the one its seed always
  // named (tests list seeds the long runs found).
  std::mt19937_64 late_rng_;
  // The broadcast_like corner's draws, added after late_rng_'s: a stream of
  // their own too, since a late draw taken (a run-time step count) moves
  // the main stream, so moving late_rng_ would change recorded graphs.
  std::mt19937_64 like_rng_;
  GeneratorOptions options_;
  int loop_depth_ = 0;  // loop bodies being built around the current op
  RandomCase case_;
  std::vector<TermRef> pool_;
  std::map<std::string, int> built_;
};

// Random input values: floats in [-2, 2] (every other input all positive,
// so that logs and roots are defined), one element in eight a special value
// (0, ±1, 2, ±40, ±800: exp underflows or overflows; in corners also ±∞ and
// NaN); integers in [-4, 4], random bools. With `special` false (finite
// differences), no special values.
std::vector<ops::Array> random_inputs(const RandomCase& c, std::uint64_t seed, bool corners = false,
                                      bool special = true);

}  // namespace eqsat::testing
