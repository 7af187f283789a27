// The graph file parser: reads a `.eg` file (docs/language.md "Graph files")
// into a type-checked Graph of hash-consed terms.
//
//   Graph g = parse_graph_file("examples/01_elementwise.eg");
//
// Every problem — syntax, an unknown name or op, arity, a bad attribute, a
// type or shape mismatch, a body using an outer value, a duplicate name — is
// a DiagnosticError whose lines read `FILE:LINE:COL: error: MESSAGE`,
// pointing at the offending sub-expression. Errors in different top-level
// forms are all reported; within one form, the first.
#pragma once

#include "attrs.hpp"
#include "graph.hpp"
#include "sexpr.hpp"

#include <string>
#include <string_view>

namespace eqsat::ops {

// Parses `text`; `file` names it in diagnostics and `base_dir` is the
// folder that `(load "w.npy")` paths are relative to.
Graph parse_graph(std::string_view text, const std::string& file, const std::string& base_dir);

// Reads and parses the file at `path`; loads are relative to its folder.
Graph parse_graph_file(const std::string& path);

// Pieces shared with other readers of the s-expression syntax (rule
// files); both throw a DiagnosticError located at the offending atom.
//
// A type: `f64`, or `(f32 3 ?)` with `?` for an unknown dimension.
TensorType parse_type(const SExpr& e);
// The value written after `:KEY` of an op (parse_attr_literal), or the
// error `:KEY expects FORM, got VALUE`.
AttrValue parse_attr_value(const SExpr& v, AttrKey key);

}  // namespace eqsat::ops
