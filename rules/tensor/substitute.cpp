#include "rules/tensor/substitute.hpp"

#include "rules/tensor/op_symbols.hpp"

#include <algorithm>

namespace eqsat::rules {

using egraph::EClassId;
using egraph::ENodeId;
using ops::OpKind;

// One class being substituted: its e-nodes (a snapshot), the one being
// rebuilt, the images of that e-node's children so far, and the images of
// the e-nodes done.
struct Substitution::Frame {
  EClassId c;
  std::vector<ENodeId> nodes;
  std::size_t node = 0;
  std::vector<EClassId> kids;
  std::vector<EClassId> images;
};

Substitution::Substitution(TensorEGraph& g, std::vector<Replace> map) : g_(g) {
  egraph::EGraph& eg = g_.egraph();
  for (const Replace& r : map) {
    const EClassId from = eg.find(r.from);
    map_.emplace(from, r.to);
    const TensorData& d = g_.data(from);
    if (d.rep->kind() == OpKind::Nominal)
      slot_map_.emplace(d.rep->attrs().get<std::int64_t>(ops::AttrKey::Slot),
                        SlotImage{r.to, d.rep->tensor_type()});
    else
      generalize_ = true;
    touched_.insert(touched_.end(), d.rep->free_nominals().begin(), d.rep->free_nominals().end());
    touched_.insert(touched_.end(), d.free_nominals.begin(), d.free_nominals.end());
  }
  std::ranges::sort(touched_);
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
}

Substitution::Image Substitution::lookup(EClassId c) const {
  const egraph::EGraph& eg = g_.egraph();
  auto image = [&](EClassId to) {
    return Image{true, to.valid() ? std::optional(eg.find(to)) : std::nullopt};
  };
  if (auto it = map_.find(c); it != map_.end()) return image(it->second);
  if (auto it = memo_.find(c); it != memo_.end())
    return Image{true, it->second ? std::optional(eg.find(*it->second)) : std::nullopt};
  // The class's facts, not its representative: a class with one form
  // reading none of the touched slots (a constant, say) is independent of
  // them, whichever form happens to represent it.
  const auto& reads = g_.data(c).free_nominals;
  if (std::ranges::none_of(reads,
                           [&](std::int64_t s) { return std::ranges::binary_search(touched_, s); }))
    return Image{true, c};
  return Image{};
}

std::optional<EClassId> Substitution::rebuild(ENodeId n, std::span<const EClassId> kids) {
  const OpKind kind = g_.kind(n);
  if (kind == OpKind::Fn) return std::nullopt;  // bodies are closed: reached only by a cycle
  if (kind == OpKind::Nominal) {
    const auto it = slot_map_.find(g_.attrs(n).get<std::int64_t>(ops::AttrKey::Slot));
    if (it == slot_map_.end()) return g_.egraph().class_of(n);
    // A nominal of this slot with another type is another body's parameter,
    // reached through a class shared by both (equal constants, say): not
    // this body's to substitute, and no form of this body.
    if (g_.data(g_.egraph().class_of(n)).tensor_type() != it->second.type) return std::nullopt;
    if (!it->second.to.valid()) return std::nullopt;
    return g_.egraph().find(it->second.to);
  }
  return g_.add_op(kind, g_.attrs(n), kids);
}

std::optional<EClassId> Substitution::operator()(EClassId root) {
  egraph::EGraph& eg = g_.egraph();
  if (const Image i = lookup(eg.find(root)); i.known) return i.cls;
  std::vector<Frame> stack;
  auto push = [&](EClassId c) {
    stack.push_back({c, std::vector<ENodeId>(eg.nodes(c).begin(), eg.nodes(c).end()), 0, {}, {}});
    on_stack_.insert(c);
  };
  // The e-node being rebuilt in the top frame has no image: try the next.
  auto skip_node = [&](Frame& f) {
    f.kids.clear();
    ++f.node;
  };
  push(eg.find(root));
  while (true) {
    Frame& f = stack.back();
    if (f.node == f.nodes.size()) {
      // Every e-node tried: the class's image is the merge of theirs.
      std::optional<EClassId> image;
      for (EClassId i : f.images) {
        if (image) eg.merge(*image, i);
        image = eg.find(i);
      }
      memo_[f.c] = image;
      on_stack_.erase(f.c);
      stack.pop_back();
      if (stack.empty()) return image;
      if (image)
        stack.back().kids.push_back(*image);
      else
        skip_node(stack.back());
      continue;
    }
    const ENodeId n = f.nodes[f.node];
    const auto children = eg.children(n);
    if (f.kids.size() == children.size()) {
      if (auto i = rebuild(n, f.kids)) f.images.push_back(*i);
      skip_node(f);
      if (generalize_ && !f.images.empty()) f.node = f.nodes.size();  // one form is enough
      continue;
    }
    const EClassId child = eg.find(children[f.kids.size()]);
    if (const Image i = lookup(child); i.known) {
      if (i.cls)
        f.kids.push_back(*i.cls);
      else
        skip_node(f);
    } else if (on_stack_.contains(child)) {
      skip_node(f);  // would close a cycle
    } else {
      push(child);
    }
  }
}

EClassId nominal_class(TensorEGraph& g, std::int64_t slot, const ops::TensorType& type) {
  return g.add_term(ops::Term::nominal(slot, type));
}

bool is_parameter(TensorEGraph& g, EClassId c, std::int64_t slot, const ops::TensorType& type) {
  return g.egraph().find(c) == g.egraph().find(nominal_class(g, slot, type));
}

std::vector<EClassId> body_outputs(const TensorEGraph& g, EClassId fn) {
  const egraph::EGraph& eg = g.egraph();
  for (ENodeId n : eg.nodes(fn))
    if (g.kind(n) == OpKind::Fn) {
      std::vector<EClassId> outs;
      for (EClassId c : eg.children(n)) outs.push_back(eg.find(c));
      return outs;
    }
  return {};
}

std::optional<EClassId> add_body(TensorEGraph& g, std::vector<ops::TensorType> params,
                                 std::span<const EClassId> outputs) {
  ops::Attrs attrs;
  attrs.set(ops::AttrKey::Params, std::move(params));
  return g.add_op(OpKind::Fn, std::move(attrs), outputs);
}

namespace {

const std::vector<ops::TensorType>& params_of(const TensorEGraph& g, EClassId fn) {
  return g.data(fn).rep->attrs().get<std::vector<ops::TensorType>>(ops::AttrKey::Params);
}

}  // namespace

Substitution bind_parameters(TensorEGraph& g, EClassId fn, std::span<const EClassId> values) {
  const auto& params = params_of(g, fn);
  std::vector<Replace> map;
  for (std::size_t k = 0; k < values.size() && k < params.size(); ++k)
    map.push_back({nominal_class(g, static_cast<std::int64_t>(k), params[k]), values[k]});
  return Substitution(g, std::move(map));
}

std::optional<EClassId> instantiate(TensorEGraph& g, ops::TermRef t,
                                    std::span<const EClassId> args) {
  // The nominals t reads at its own level (nested bodies are closed). Not
  // `for_each_post_order`: nominals are loaded in this walk's own order
  // (last operand first), which fixes the ids of their new classes.
  std::vector<Replace> map;
  std::unordered_set<ops::TermRef> seen;
  std::vector<ops::TermRef> work{t};
  while (!work.empty()) {
    const ops::TermRef u = work.back();
    work.pop_back();
    if (u->free_nominals().empty() || !seen.insert(u).second) continue;
    if (u->kind() == OpKind::Nominal) {
      const auto slot = static_cast<std::size_t>(u->attrs().get<std::int64_t>(ops::AttrKey::Slot));
      map.push_back({g.add_term(u), slot < args.size() ? args[slot] : EClassId{}});
    }
    for (ops::TermRef o : u->operands()) work.push_back(o);
  }
  return Substitution(g, std::move(map))(g.add_term(t));
}

std::optional<std::vector<EClassId>> remap_outputs(TensorEGraph& g, EClassId fn,
                                                   std::span<const std::int64_t> slot_of,
                                                   std::span<const EClassId> value,
                                                   std::span<const ops::TensorType> params,
                                                   std::span<const std::size_t> outputs) {
  const std::vector<EClassId> old = body_outputs(g, fn);
  if (old.empty()) return std::nullopt;
  const auto& old_params = params_of(g, fn);
  std::vector<Replace> map;
  for (std::size_t k = 0; k < slot_of.size(); ++k) {
    const auto slot = static_cast<std::int64_t>(k);
    if (slot_of[k] == slot) continue;
    const EClassId from = nominal_class(g, slot, old_params[k]);
    if (slot_of[k] >= 0)
      map.push_back(
          {from, nominal_class(g, slot_of[k],
                               params.empty() ? old_params[k]
                                              : params[static_cast<std::size_t>(slot_of[k])])});
    else
      map.push_back({from, value[k]});
  }
  Substitution subst(g, std::move(map));
  std::vector<EClassId> outs;
  for (std::size_t j : outputs) {
    const auto o = subst(old[j]);
    if (!o) return std::nullopt;
    outs.push_back(*o);
  }
  return outs;
}

std::optional<EClassId> remap_body(TensorEGraph& g, EClassId fn,
                                   std::span<const std::int64_t> slot_of,
                                   std::span<const EClassId> value,
                                   std::vector<ops::TensorType> params,
                                   std::span<const std::size_t> outputs) {
  const auto outs = remap_outputs(g, fn, slot_of, value, params, outputs);
  if (!outs) return std::nullopt;
  return add_body(g, std::move(params), *outs);
}

}  // namespace eqsat::rules
