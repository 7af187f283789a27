// Substitution in bodies (docs/architecture.md decision 6): the one primitive behind
// every context-sensitive rewrite — dropping, merging or renumbering a
// loop's parameters, inlining a constant into a body, moving invariant work
// out, inlining a call. It works on e-classes, not on representative terms:
// every e-node of a body class is rebuilt over the substituted children, so
// the new body starts with all the forms saturation found for the old one.
//
//   Substitution s(g, {{nominal_2, nominal_1}, {nominal_3, {}}});
//   auto out = s(body_output);  // nominal 2 read as nominal 1; 3 must not be read
//
// `nominal(k) = X` is never asserted: it only holds inside one loop.
#pragma once

#include "rules/tensor/tensor_egraph.hpp"

#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace eqsat::rules {

// One entry of a substitution: `from` (a body class, typically a
// parameter's nominal) stands for `to`; an invalid `to` means the result may
// not read `from` at all (a dropped parameter).
struct Replace {
  egraph::EClassId from;
  egraph::EClassId to;
};

// A substitution over one body level, memoized per e-class: a class
// reading none of the slots its entries touch (by its representative) is
// itself; any other class is the merge of its e-nodes rebuilt over the
// substituted children. An e-node is skipped when it would close a cycle
// (a child being substituted above it) or when a child has no image; a
// class with no e-node left has none. Nested bodies are closed, so they
// are never entered. `to` classes must have the type of their `from` (or a
// more precise one): the body's equalities then still hold.
//
// When every `from` is a parameter's nominal this is a substitution
// instance, and equalities of the old body hold for the images: merging
// them is sound. When a `from` is any other class (moving invariant work
// out: the class becomes a new parameter) it is a generalization, under
// which equalities do not survive (`x·0 = 0` does not make `v = 0` for
// the new parameter v): each class then takes the image of its first
// e-node that builds, and nothing is merged.
class Substitution {
 public:
  Substitution(TensorEGraph& g, std::vector<Replace> map);

  // The image of class `c`; nullopt when every way to build it reads a
  // class without image or does not type-check.
  std::optional<egraph::EClassId> operator()(egraph::EClassId c);

 private:
  struct Frame;
  // An image: `known` false when the class must be walked.
  struct Image {
    bool known = false;
    std::optional<egraph::EClassId> cls;
  };
  Image lookup(egraph::EClassId c) const;
  std::optional<egraph::EClassId> rebuild(egraph::ENodeId n,
                                          std::span<const egraph::EClassId> kids);

  TensorEGraph& g_;
  std::unordered_map<egraph::EClassId, egraph::EClassId> map_;
  // A nominal entry: the image of the slot's nominal of this type.
  struct SlotImage {
    egraph::EClassId to;
    ops::TensorType type;
  };
  std::unordered_map<std::int64_t, SlotImage> slot_map_;  // nominal entries, by slot
  std::vector<std::int64_t> touched_;                     // sorted slots the `from` classes read
  std::unordered_map<egraph::EClassId, std::optional<egraph::EClassId>> memo_;
  std::unordered_set<egraph::EClassId> on_stack_;
  bool generalize_ = false;  // a `from` is not a nominal: one form per class
};

// The class of `nominal(slot, type)`.
egraph::EClassId nominal_class(TensorEGraph& g, std::int64_t slot, const ops::TensorType& type);

// True when class `c` holds parameter `slot` of type `type` itself: some
// form of the value is that parameter (a state carried unchanged).
bool is_parameter(TensorEGraph& g, egraph::EClassId c, std::int64_t slot,
                  const ops::TensorType& type);

// The output classes of body class `fn` (the children of its `fn` e-node);
// empty when the class holds none.
std::vector<egraph::EClassId> body_outputs(const TensorEGraph& g, egraph::EClassId fn);

// The body with parameters `params` returning `outputs`; nullopt when it
// does not type-check.
std::optional<egraph::EClassId> add_body(TensorEGraph& g, std::vector<ops::TensorType> params,
                                         std::span<const egraph::EClassId> outputs);

// The substitution binding parameter k of body `fn` to values[k] (outer
// classes; an invalid value: k may not be read).
Substitution bind_parameters(TensorEGraph& g, egraph::EClassId fn,
                             std::span<const egraph::EClassId> values);

// Adds `t` (a term of a body) with nominal k replaced by args[k] (an
// invalid arg: k may not be read): the Substitution of t's class binding
// the nominals it reads. nullopt when no form of it avoids a missing slot
// or type-checks.
std::optional<egraph::EClassId> instantiate(TensorEGraph& g, ops::TermRef t,
                                            std::span<const egraph::EClassId> args);

// Outputs `outputs` of body `fn` with its parameters mapped to new slots
// (as remap_body below; with `params` empty, a new slot has the type of the
// parameter mapped to it). nullopt when an output cannot be built.
std::optional<std::vector<egraph::EClassId>> remap_outputs(TensorEGraph& g, egraph::EClassId fn,
                                                           std::span<const std::int64_t> slot_of,
                                                           std::span<const egraph::EClassId> value,
                                                           std::span<const ops::TensorType> params,
                                                           std::span<const std::size_t> outputs);

// The body `fn` with its parameters mapped to new slots: parameter k becomes
// `slot_of[k]` of `params` (or, when `slot_of[k]` is negative, the outer
// class `value[k]`, or nothing when that is invalid too), returning
// outputs `outputs` of the old body in that order. nullopt when an output
// cannot be built.
std::optional<egraph::EClassId> remap_body(TensorEGraph& g, egraph::EClassId fn,
                                           std::span<const std::int64_t> slot_of,
                                           std::span<const egraph::EClassId> value,
                                           std::vector<ops::TensorType> params,
                                           std::span<const std::size_t> outputs);

}  // namespace eqsat::rules
