// The term helper of the loop rewrites: rename_nominals renames one body
// level's parameters, leaves closed terms (nested bodies) as they are, and
// walks bodies of any depth without recursion.
#include "rules/loops/scan_view.hpp"

#include <catch2/catch.hpp>

using namespace eqsat;
using ops::OpKind;
using ops::Term;
using ops::TermRef;

namespace {
const ops::TensorType kScalar{ops::DType::F64, {}};
}  // namespace

TEST_CASE("renaming nominals swaps parameters and keeps closed terms") {
  const TermRef inner =
      Term::fn({kScalar}, {Term::make(OpKind::Exp, {}, {Term::nominal(0, kScalar)})});
  const TermRef c = Term::scalar(ops::DType::F64, 2);
  const TermRef body = Term::make(
      OpKind::Add, {},
      {Term::make(OpKind::Mul, {}, {Term::nominal(0, kScalar), c}), Term::nominal(1, kScalar)});
  const std::vector<std::int64_t> swap{1, 0};
  const TermRef want = Term::make(
      OpKind::Add, {},
      {Term::make(OpKind::Mul, {}, {Term::nominal(1, kScalar), c}), Term::nominal(0, kScalar)});
  CHECK(rules::rename_nominals(body, swap) == want);
  CHECK(rules::rename_nominals(inner, swap) == inner);
  CHECK(rules::rename_nominals(c, swap) == c);
}

TEST_CASE("renaming the nominals of a body 200000 terms deep needs no recursion") {
  TermRef t = Term::nominal(0, kScalar);
  TermRef want = Term::nominal(3, kScalar);
  for (int i = 0; i < 200000; ++i) {
    t = Term::make(OpKind::Neg, {}, {t});
    want = Term::make(OpKind::Neg, {}, {want});
  }
  const std::vector<std::int64_t> to_three{3};
  CHECK(rules::rename_nominals(t, to_three) == want);
}
