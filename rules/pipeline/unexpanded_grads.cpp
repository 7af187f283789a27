#include "rules/pipeline/unexpanded_grads.hpp"

#include "rules/autodiff/gradient.hpp"
#include "rules/autodiff/pullback.hpp"

#include "ops/post_order.hpp"
#include "ops/type_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace eqsat::rules {

using ops::OpKind;
using ops::SourceLocation;
using ops::TermRef;

namespace {

// Why `grad` could not be expanded, asked again of the extracted terms.
std::string why_unexpanded(TermRef grad) {
  const TermRef cost = grad->operand(0), wrt = grad->operand(1);
  bool nested = false;
  ops::for_each_post_order(
      cost, ops::Bodies::Enter, [](TermRef) {},
      [&](TermRef u) {
        nested = nested || u->kind() == OpKind::Grad;
        return !nested;
      });
  if (nested) return "its cost holds a grad that cannot be expanded";
  try {
    const TermRef d = gradient(
        cost, wrt, {.checkpoint = grad->attrs().get_or<std::int64_t>(ops::AttrKey::Checkpoint, 0)});
    if (d->is_tuple() || !ops::compatible(d->tensor_type(), grad->tensor_type()))
      return fmt::format("the gradient's type {} differs from the grad's {}",
                         ops::to_string(d->type()), ops::to_string(grad->type()));
  } catch (const ops::PullbackError& e) {
    return e.what();
  } catch (const ops::TypeError& e) {
    return std::string("a pullback is ill-typed: ") + e.what();
  }
  return "the rules did not expand it (no expand-gradients phase, or a limit stopped it)";
}

}  // namespace

void refuse_unexpanded_grads(std::span<const TermRef> roots, WrittenLocations& where,
                             const ops::Graph& graph) {
  std::vector<ops::Diagnostic> found;
  ops::for_each_post_order(roots, ops::Bodies::Enter, [&](TermRef t) {
    if (t->kind() != OpKind::Grad) return;
    SourceLocation at;
    if (const SourceLocation* w = where.of(t))
      at = *w;
    else if (!graph.locations.empty())
      at.file = std::ranges::min_element(graph.locations, {}, [](const auto& l) {
                  return l.second.file;
                })->second.file;
    else
      at.file = "<graph>";
    const TermRef wrt = t->operand(1);
    const std::string name =
        wrt->kind() == OpKind::Input
            ? wrt->attrs().get<std::string>(ops::AttrKey::Name)
            : fmt::format("parameter {} of its body",
                          wrt->attrs().get_or<std::int64_t>(ops::AttrKey::Slot, 0) + 1);
    std::string why = why_unexpanded(t);
    if (why.starts_with("grad: ")) why.erase(0, 6);
    found.push_back({at, fmt::format("grad with respect to {} cannot be expanded: {}", name, why)});
  });
  if (!found.empty()) throw ops::DiagnosticError(std::move(found));
}

}  // namespace eqsat::rules
