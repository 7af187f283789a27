// Bodies built in Python: the `fn` of a `scan` and of a `def`. The Python
// body receives one expression per parameter (a `nominal` leaf of the
// parameter's type) and returns the body's outputs; the result is the same
// hash-consed `fn` term the graph parser builds for the same text.
// Defs keep the name they were made under, so a graph built from calls
// prints (and parses back) with its `def`s.
#pragma once

#include "expr.hpp"

#include "ops/graph.hpp"

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace eqsat::python {

// The parameters of a body about to be built, of `types`: while the body is
// built they are nominals of slots `base + k`, a range no other body uses,
// so that `body` can tell its own parameters from an enclosing body's.
struct Parameters {
  std::int64_t base = 0;
  std::vector<Expr> values;
};
Parameters parameters(const std::vector<ops::TensorType>& types);

// `(fn (PARAMS...) OUTPUTS...)` over the parameters of `params` (from
// `parameters`): `outputs` are the values the Python body returned
// (expressions over those parameters, or Python numbers, which take the
// dtype at their position in `number_dtypes`: f64 or i64 past its end); the
// parameters' slots become 0, 1, ... Throws eqsat.Error naming `what`
// ("scan", "function f") when an output reads a graph input or a parameter
// of an enclosing body (bodies are closed: such values come in as
// parameters) or is not an expression. With a `def_name`, the body is a def
// of that name (made unique among the defs built so far).
Expr body(const Parameters& params, const pybind11::list& outputs,
          const std::vector<ops::DType>& number_dtypes, const std::string& what, bool inline_calls,
          const std::string& def_name);

// A `scan` term (docs/language.md "Loops") of the body `fn`: `sequences`
// and `mitsots` are pairs (value, taps) with taps ascending, `sitsots` and
// `nonsequences` values, `n_steps` None, an int or an integer scalar
// expression.
Expr scan(const Expr& fn, const pybind11::list& sequences, const pybind11::list& mitsots,
          const pybind11::list& sitsots, const pybind11::list& nonsequences,
          const pybind11::object& n_steps, std::int64_t num_nitsot, bool until);

// Adds to `g.defs`, in post-order, every def built by `body` with a name
// that its outputs call.
void add_called_defs(ops::Graph& g);

}  // namespace eqsat::python
