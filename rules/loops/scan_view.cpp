#include "rules/loops/scan_view.hpp"

#include "rules/tensor/op_class_searcher.hpp"
#include "rules/tensor/op_symbols.hpp"

#include "ops/post_order.hpp"

#include <algorithm>
#include <bit>
#include <unordered_map>

namespace eqsat::rules {

using egraph::EClassId;
using ops::OpKind;
using ops::TermRef;

namespace {

std::int64_t total_taps(const std::vector<ops::IntList>& taps, std::size_t upto) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < upto; ++i) n += static_cast<std::int64_t>(taps[i].size());
  return n;
}

}  // namespace

std::int64_t ScanView::sequence_param(std::size_t i, std::size_t tap) const {
  return total_taps(spec.sequence_taps, i) + static_cast<std::int64_t>(tap);
}

std::int64_t ScanView::mitsot_param(std::size_t i, std::size_t tap) const {
  return total_taps(spec.sequence_taps, num_sequences()) + total_taps(spec.mitsot_taps, i) +
         static_cast<std::int64_t>(tap);
}

std::int64_t ScanView::sitsot_param(std::size_t i) const {
  return mitsot_param(num_mitsot(), 0) + static_cast<std::int64_t>(i);
}

std::int64_t ScanView::nonsequence_param(std::size_t i) const {
  return sitsot_param(num_sitsot()) + static_cast<std::int64_t>(i);
}

std::int64_t ScanView::num_params() const {
  return nonsequence_param(num_nonsequences());
}

const std::vector<ops::TensorType>& ScanView::params() const {
  return fn->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
}

std::vector<std::int64_t> ScanView::state_params(std::size_t j) const {
  std::vector<std::int64_t> slots;
  if (j < num_mitsot()) {
    for (std::size_t k = 0; k < spec.mitsot_taps[j].size(); ++k)
      slots.push_back(mitsot_param(j, k));
  } else if (j < num_mitsot() + num_sitsot()) {
    slots.push_back(sitsot_param(j - num_mitsot()));
  }
  return slots;
}

bool ScanView::reads(std::size_t output, std::int64_t slot) const {
  return std::ranges::binary_search(body_output(output)->free_nominals(), slot);
}

bool ScanView::reads_anywhere(std::int64_t slot) const {
  for (std::size_t j = 0; j < fn->operands().size(); ++j)
    if (reads(j, slot)) return true;
  return false;
}

std::optional<ScanView> view_scan(const TensorEGraph& g, egraph::ENodeId n) {
  if (g.kind(n) != OpKind::Scan) return std::nullopt;
  const egraph::EGraph& eg = g.egraph();
  ScanView v;
  v.node = n;
  v.attrs = g.attrs(n);
  v.spec = v.attrs.get<ops::ScanSpec>(ops::AttrKey::Scan);
  for (EClassId c : eg.children(n)) v.operands.push_back(eg.find(c));
  v.fn = g.data(v.operands[0]).rep;
  if (v.fn->kind() != OpKind::Fn) return std::nullopt;
  return v;
}

std::optional<EClassId> add_scan(TensorEGraph& g, const ops::Attrs& base, const ops::ScanSpec& spec,
                                 std::span<const EClassId> operands) {
  ops::Attrs attrs = base;
  attrs.set(ops::AttrKey::Scan, spec);
  return g.add_op(OpKind::Scan, std::move(attrs), operands);
}

TermRef rename_nominals(TermRef t, std::span<const std::int64_t> new_slot) {
  std::unordered_map<TermRef, TermRef> renamed;
  // Closed terms (nested bodies included) are leaves: they stay as they are.
  ops::for_each_post_order(
      t, ops::Bodies::Skip,
      [&](TermRef u) {
        TermRef out = u;
        if (u->kind() == OpKind::Nominal) {
          const auto slot = u->attrs().get<std::int64_t>(ops::AttrKey::Slot);
          out = ops::Term::nominal(new_slot[static_cast<std::size_t>(slot)], u->tensor_type());
        } else if (!u->free_nominals().empty()) {
          std::vector<TermRef> kids;
          for (TermRef o : u->operands()) kids.push_back(renamed.at(o));
          out = ops::Term::make(u->kind(), u->attrs(), std::move(kids));
        }
        renamed.emplace(u, out);
      },
      [](TermRef u) { return !u->free_nominals().empty(); });
  return renamed.at(t);
}

std::optional<std::int64_t> sequence_steps(const TensorEGraph& g, const ScanView& s) {
  std::optional<std::int64_t> steps;
  for (std::size_t j = 0; j < s.num_sequences(); ++j) {
    const auto* t = std::get_if<ops::TensorType>(&g.type(s.operands[s.sequence_operand(j)]));
    if (!t || t->dims.empty() || t->dims[0] == ops::kUnknownDim) return std::nullopt;
    const std::int64_t allowed =
        std::max<std::int64_t>(0, t->dims[0] - s.spec.sequence_taps[j].back());
    steps = std::min(steps.value_or(allowed), allowed);
  }
  return steps;
}

bool merge_same(TensorEGraph& g, EClassId a, std::optional<EClassId> b) {
  egraph::EGraph& eg = g.egraph();
  if (!b || eg.find(a) == eg.find(*b)) return false;
  const auto* ta = std::get_if<ops::TensorType>(&g.type(a));
  const auto* tb = std::get_if<ops::TensorType>(&g.type(*b));
  if (!ta || !tb || !ops::compatible(*ta, *tb) || drops_check(g, a, *b)) return false;
  return eg.merge(a, *b);
}

bool merge_loop(TensorEGraph& g, EClassId a, std::optional<EClassId> b) {
  return b && !drops_check(g, a, *b) && g.egraph().merge(a, *b);
}

namespace {

// What a form-only applier's rewrite reads of loop `v`, as words: the
// e-node, the body's representative, and per operand its class, dims and
// known uniform value.
std::vector<std::int64_t> form_key(const TensorEGraph& g, const ScanView& v) {
  std::vector<std::int64_t> key{
      static_cast<std::int64_t>(v.node.value()),
      std::bit_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(v.fn))};
  for (EClassId c : v.operands) {
    key.push_back(static_cast<std::int64_t>(c.value()));
    const TensorData& d = g.data(c);
    if (const auto* t = std::get_if<ops::TensorType>(&d.type())) {
      key.push_back(static_cast<std::int64_t>(t->dims.size()));
      key.insert(key.end(), t->dims.begin(), t->dims.end());
    }
    key.push_back(d.uniform.has_value());
    if (d.uniform) key.push_back(std::bit_cast<std::int64_t>(*d.uniform));
  }
  return key;
}

}  // namespace

bool ScanApplier::apply(egraph::EGraph& eg, EClassId root, const egraph::Subst&) {
  bool changed = false;
  const std::vector<egraph::ENodeId> nodes(eg.nodes(root).begin(), eg.nodes(root).end());
  for (egraph::ENodeId n : nodes) {
    const auto v = view_scan(g_, n);
    if (!v) continue;
    if (depends_only_on_form() && !forms_done_.insert(form_key(g_, *v)).second) continue;
    changed |= rewrite(eg, eg.find(root), *v);
  }
  return changed;
}

egraph::Rewrite make_scan_rewrite(std::string name, std::shared_ptr<ScanApplier> applier) {
  return egraph::Rewrite(
      std::move(name),
      std::make_shared<OpClassSearcher>(std::vector<ops::OpKind>{ops::OpKind::Scan}, "(scan ...)"),
      std::move(applier));
}

}  // namespace eqsat::rules
