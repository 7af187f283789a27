// Whether applying an op may fail when the graph runs (an index out of
// range, shapes that do not broadcast, a loop longer than its sequences):
// what the static types and constant operands do not rule out. The
// optimizer keeps such a check (docs/architecture.md decision 13): a value
// is folded, and a rewrite may drop the term, only where it cannot fail.
#pragma once

#include "ops/array.hpp"
#include "ops/attrs.hpp"
#include "ops/op.hpp"
#include "ops/term.hpp"
#include "ops/type.hpp"

#include <absl/container/flat_hash_map.h>

#include <span>

namespace eqsat::ops {

// True unless `kind` applied with `attrs` to operands of `types` (the
// values of constant operands in `values`, nullptr where unknown) provably
// succeeds. Operands' own failures are not counted here. Conservative:
// "may" means "not proven not to".
bool may_fail(OpKind kind, const Attrs& attrs, std::span<const Type* const> types,
              std::span<const Array* const> values);

// Whether computing term `t` may fail: an op under it (bodies included)
// may fail on its operands' types and constant values. The tensor
// analysis' may-fail for an extracted term; memoized per term.
class TermFailures {
 public:
  bool operator()(TermRef t);

 private:
  absl::flat_hash_map<TermRef, bool> memo_;
};

}  // namespace eqsat::ops
