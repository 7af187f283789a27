#include "scan_rows.hpp"

#include "ops/op.hpp"
#include "ops/post_order.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace eqsat::backend::detail {

namespace {

using ops::OpGroup;
using ops::OpKind;
using ops::TermRef;

// What a value of the body holds for a block of rows: its own rows along
// axis 0 (Rows), or the same value whatever the block (Shared: the
// non-sequences, constants and what is computed from them alone).
enum class Part { Rows, Shared };

int rank_of(TermRef t) {
  return t->tensor_type().rank();
}

// An elementwise operand lines up with the result's rows: a Rows operand
// has the result's rank (so its axis 0 is the result's), a Shared one a
// lower rank or a static length 1 along axis 0 (it broadcasts over them).
bool lines_up(TermRef operand, Part part, int rank) {
  if (part == Part::Rows) return rank_of(operand) == rank;
  const auto& dims = operand->tensor_type().dims;
  return rank_of(operand) < rank || dims[0] == 1;
}

// The part of `t`, given its operands' parts, or nullopt when `t` mixes
// rows (or is not one of the ops known to keep them apart).
std::optional<Part> part_of(TermRef t, const std::unordered_map<TermRef, Part>& parts) {
  const OpKind kind = t->kind();
  if (kind == OpKind::Scan || kind == OpKind::Call || kind == OpKind::Fn || t->is_tuple())
    return std::nullopt;
  bool any_rows = false;
  for (TermRef o : t->operands()) any_rows = any_rows || parts.at(o) == Part::Rows;
  if (!any_rows) return Part::Shared;
  const int rank = rank_of(t);
  if (rank == 0) return std::nullopt;
  const auto axis = [&] { return t->attrs().get<std::int64_t>(ops::AttrKey::Axis); };
  switch (ops::op_info(kind).group) {
    case OpGroup::Unary:
      return Part::Rows;
    case OpGroup::Binary:
    case OpGroup::Select:
      for (TermRef o : t->operands())
        if (!lines_up(o, parts.at(o), rank)) return std::nullopt;
      return Part::Rows;
    case OpGroup::Reduction: {
      const auto& axes = t->attrs().get<ops::IntList>(ops::AttrKey::Axis);
      if (std::ranges::find(axes, 0) != axes.end()) return std::nullopt;
      return Part::Rows;
    }
    case OpGroup::Softmax:
      return axis() == 0 ? std::nullopt : std::optional(Part::Rows);
    case OpGroup::LinAlg: {
      // (rows, ..., k) . (k, n): each row of the product is its row's.
      TermRef a = t->operand(0), b = t->operand(1);
      if (parts.at(a) != Part::Rows || parts.at(b) != Part::Shared) return std::nullopt;
      if (rank_of(a) < 2 || rank_of(b) != 2) return std::nullopt;
      return Part::Rows;
    }
    default:
      break;
  }
  if (kind == OpKind::Slice || kind == OpKind::ExpandDims)
    return axis() == 0 ? std::nullopt : std::optional(Part::Rows);
  if (kind == OpKind::Transpose) {
    const auto& perm = t->attrs().get<ops::IntList>(ops::AttrKey::Perm);
    return perm.empty() || perm[0] != 0 ? std::nullopt : std::optional(Part::Rows);
  }
  if (kind == OpKind::Concat) {
    for (TermRef o : t->operands())
      if (parts.at(o) != Part::Rows) return std::nullopt;
    return axis() == 0 ? std::nullopt : std::optional(Part::Rows);
  }
  return std::nullopt;
}

}  // namespace

bool scan_rows_independent(TermRef scan) {
  const auto& spec = scan->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
  if (spec.until || !spec.mitsot_taps.empty()) return false;
  TermRef fn = scan->operand(0);
  std::int64_t taps = 0;
  for (const auto& t : spec.sequence_taps) taps += static_cast<std::int64_t>(t.size());
  // Parameters in order: the sequences' taps, the sit-sots (both by rows),
  // the non-sequences (shared).
  const std::int64_t by_rows = taps + spec.num_sitsot;
  std::unordered_map<TermRef, Part> parts;
  bool ok = true;
  ops::for_each_post_order(fn->operands(), ops::Bodies::Skip, [&](TermRef t) {
    if (!ok) return;
    if (t->kind() == OpKind::Nominal) {
      const bool rows = t->attrs().get<std::int64_t>(ops::AttrKey::Slot) < by_rows;
      if (rows && rank_of(t) == 0) ok = false;
      parts.emplace(t, rows ? Part::Rows : Part::Shared);
      return;
    }
    const std::optional<Part> p = part_of(t, parts);
    if (!p)
      ok = false;
    else
      parts.emplace(t, *p);
  });
  if (!ok) return false;
  return std::ranges::all_of(fn->operands(), [&](TermRef o) { return parts.at(o) == Part::Rows; });
}

}  // namespace eqsat::backend::detail
